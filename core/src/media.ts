// @em/core/media: imaging (sharp), EXIF, video (ffmpeg) and faces (the BIB rules live in the ml-worker).
export * from './imaging/formats';
export * from './imaging/pixel-limit';
export * from './faces/embedding';
export * from './faces/stranger-check';
export * from './faces/face-matrix';
export * from './faces/selfie-embedder';
export * from './faces/selfie-images';
export * from './faces/face-index-revisions';
export * from './video/ffmpeg';
export { findOnPath } from './video/tools';
export * from './video/segments';
