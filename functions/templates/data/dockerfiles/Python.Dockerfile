FROM python:3.12-slim

# No .pyc files in the image, and output unbuffered so that logs appear at once.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app

COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .

RUN useradd --system --no-create-home app
USER app

# Replace with the command that starts your application.
CMD ["python", "app.py"]
