// @em/core/media: imaging (sharp), EXIF, video (ffmpeg), faces and BIBs: what more than one service needs.
export * from './imaging/photo-pixels';
export * from './imaging/formats';
export * from './imaging/pixel-limit';
export * from './faces/embedding';
export * from './faces/stranger-check';
export * from './bibs/extract';
export * from './bibs/torso-gate';
export * from './bibs/bib-score';
export * from './faces/face-matrix';
export * from './faces/selfie-embedder';
export * from './faces/face-index-revisions';
export * from './video/ffmpeg';
export { findOnPath } from './video/tools';
export * from './video/segments';
