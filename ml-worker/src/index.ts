// The ml-worker as a library (its analysers: the bench measures them); `main.ts` runs the worker process.
export { BibReader, DEFAULT_BIB_READER_OPTIONS, OCR_MAX_SIDE } from './bibs/bib-reader';
export type { BibReaderOptions } from './bibs/bib-reader';
export { PersonDetector } from './bibs/person-detector';
export { FaceAnalyzer } from './faces/face-analyzer';
export { faceQuality, landmarkSignals } from './faces/face-quality';
export type { FaceQualitySignals, Point } from './faces/face-quality';
export { displayedSize, PREVIEW_SIZES, renderPreviews, renderPreviewsOf } from './photos/previews';
export type { Previews, RenderedImage } from './photos/previews';
export { chipTransform, CHIP_PADDING, meanFaceOnChip, sampleChip } from './faces/face-chip';
export { PHOTO_FACE_OPTIONS, SELFIE_FACE_OPTIONS, VIDEO_FACE_OPTIONS } from './faces/face-options';
export type { DetectedFace, FaceAnalyzerOptions, SelfieFace } from './faces/face-options';
export { BibReaderPool } from './bibs/bib-reader-pool';
export type { BibReading } from './bibs/bib-reader-pool';
export { VideoFaceFinder } from './videos/video-faces';
export { indexPart, splitVideo, TRACKS_PER_PART } from './videos/video-parts';
export { VideoPartThread } from './videos/video-thread';
export { FaceTracker, overlap } from './videos/face-tracks';
export type { FaceBox, FaceTrackerOptions, TrackAssignment } from './videos/face-tracks';
