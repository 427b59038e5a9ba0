FROM node:20-slim
WORKDIR /usr/src/app

ENV NODE_ENV=production

# Install the dependencies first, so that the layer is reused while the lockfile does not change.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

COPY . .

# The image's `node` user has no privileges.
USER node
EXPOSE 3000
CMD ["npm", "start"]
