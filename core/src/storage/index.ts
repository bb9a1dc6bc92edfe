// @em/core/storage: the S3 object store (AWS SDK).
export * from './object-store';
