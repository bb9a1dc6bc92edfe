#!/bin/sh
# One-shot MinIO setup of docker compose (service minio-init), run with the root credentials that
# no platform service gets: the bucket, the platform's own user limited to that bucket, and a
# bucket policy that lets anyone read public/* (the media host) and nothing else. Idempotent.
set -eu
: "${MINIO_ROOT_USER:?}" "${MINIO_ROOT_PASSWORD:?}" "${S3_ACCESS_KEY_ID:?}" "${S3_SECRET_ACCESS_KEY:?}"
BUCKET=event-media
POLICY=event-media-platform

if [ "$S3_ACCESS_KEY_ID" = "$MINIO_ROOT_USER" ]; then
  echo "S3_ACCESS_KEY_ID must not be MINIO_ROOT_USER: the platform gets its own least-privilege user" >&2
  exit 1
fi

until mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null 2>&1 && mc admin info local >/dev/null 2>&1; do
  echo "waiting for MinIO..."
  sleep 1
done

mc mb --ignore-existing "local/$BUCKET"
mc anonymous set-json /deploy/minio/public-read.json "local/$BUCKET"
mc admin policy create local "$POLICY" /deploy/minio/platform-policy.json
mc admin user add local "$S3_ACCESS_KEY_ID" "$S3_SECRET_ACCESS_KEY"
# Attaching twice is an error ("already in effect"): on a re-run, check it is attached instead.
mc admin policy attach local "$POLICY" --user "$S3_ACCESS_KEY_ID" 2>/dev/null \
  || mc admin user info local "$S3_ACCESS_KEY_ID" | grep -q "$POLICY"
echo "MinIO ready: bucket $BUCKET, user $S3_ACCESS_KEY_ID ($POLICY), anonymous read of public/* only"
