// The ml-worker as a library (its analysers: the bench measures them); `main.ts` runs the worker process.
export { BibReader, DEFAULT_BIB_READER_OPTIONS, OCR_MAX_SIDE } from './bibs/bib-reader';
export type { BibReaderOptions } from './bibs/bib-reader';
export type { OcrGraph } from './bibs/ocr-model-graph';
export type { TracedLine } from './bibs/read-text';
export { DEFAULT_TEXT_CROP_OPTIONS } from './bibs/text-crops';
export type { TextCrop, TextCropOptions } from './bibs/text-crops';
export { PersonDetector } from './bibs/person-detector';
export {
  cutNumber,
  DEFAULT_BIB_RULES,
  extractBibs,
  looksLikeBib,
  printedLikeABib,
  readBibs,
  readBibsWithUnsure,
} from './bibs/extract';
export type { BibRead, BibRules, BoxGeometry, GroundReach, TextBox } from './bibs/extract';
export { DEFAULT_TORSO_RULES, onATorso, placedLikeABib, torsoRegion } from './bibs/torso-gate';
export type { PersonBox, TorsoRules } from './bibs/torso-gate';
export { bibEvidence, bibScore } from './bibs/bib-score';
export type { BibEvidence } from './bibs/bib-score';
export { FaceAnalyzer } from './faces/face-analyzer';
export { faceQuality, landmarkSignals } from './faces/face-quality';
export type { FaceQualitySignals, Point } from './faces/face-quality';
export { displayedSize, PREVIEW_SIZES, renderPreviews, renderPreviewsOf } from './photos/previews';
export type { Previews, RenderedImage } from './photos/previews';
export { chipTransform, CHIP_PADDING, meanFaceOnChip, sampleChip } from './faces/face-chip';
export { PHOTO_FACE_OPTIONS, SELFIE_FACE_OPTIONS, VIDEO_FACE_OPTIONS } from './faces/face-options';
export type { DetectedFace, FaceAnalyzerOptions, SelfieFace } from './faces/face-options';
export { boundedPixels, decodePhoto, fromPixels, withAlpha } from './photos/photo-pixels';
export type { RgbPixels } from './photos/photo-pixels';
export { BibReaderPool } from './bibs/bib-reader-pool';
export type { BibPhotoReading, BibReading } from './bibs/bib-reader-pool';
export { VideoFaceFinder } from './videos/video-faces';
export { indexPart, splitVideo, TRACKS_PER_PART } from './videos/video-parts';
export { VideoPartThread } from './videos/video-thread';
export { FaceTracker, overlap } from './videos/face-tracks';
export type { FaceBox, FaceTrackerOptions, TrackAssignment } from './videos/face-tracks';
