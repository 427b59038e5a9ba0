FROM ruby:3.3-slim

# Build tools for gems with native extensions.
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /usr/src/app

# Install the gems first, so that the layer is reused while the Gemfile does not change.
COPY Gemfile Gemfile.lock ./
RUN bundle config set --local without 'development test' \
    && bundle install

COPY . .

# Replace with the command that starts your application.
CMD ["bundle", "exec", "ruby", "app.rb"]
