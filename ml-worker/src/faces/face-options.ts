import { FaceDescriptorVersion } from '@em/core/media';
import { FaceQualitySignals } from './face-quality';
import { FaceBox } from '../videos/face-tracks';
import type { ChipKind } from './describe-faces';

export interface DetectedFace {
  /** Box relative to the image (0-1), so it holds at any resolution. */
  box: FaceBox;
  score: number;
  descriptor: Float32Array;
  /** 4 when the descriptor is the mean of dlib's chip's and its mirror image's (FACE_DESCRIPTOR_VERSION); 5 as 4, found by the second detector only; 1: one pass on face-api's box (not mirrored). */
  descriptorVersion: FaceDescriptorVersion;
  /** The same face described as faces stored before version 4 were (face-api's box, mirror-averaged: version 2); only with `boxDescriptors`. */
  boxDescriptor?: Float32Array;
  /** Pose, size, score, contrast and sharpness of the face (faceQuality turns them into a score). */
  signals: FaceQualitySignals;
}

/** `tiny+blazeface`: the tiny detector's faces plus those only BlazeFace/FaceMesh finds (turned, tilted, partly hidden). */
export type FaceDetectorKind = 'tiny' | 'ssd' | 'tiny+blazeface';

/**
 * A face of a video frame, described or not (see detectFrameFaces): a face not described is only
 * located (no landmarks, so no signals); a BlazeFace-only face the tiny detector did not confirm
 * has neither, even when it was picked.
 */
export type FrameFace = Omit<DetectedFace, 'descriptor' | 'signals'> & {
  descriptor: Float32Array | null;
  signals: FaceQualitySignals | null;
};

export interface FaceAnalyzerOptions {
  /** The tiny detector is fast; SSD MobileNet is the selfie fallback (on the group fixtures it found fewer faces than tiny). */
  detector: FaceDetectorKind;
  /** Input size of the tiny face detector: larger finds smaller faces, slower. */
  inputSize: number;
  scoreThreshold: number;
  /** Faces narrower than this (pixels of the analysed image) are too small to match reliably. */
  minFaceWidth: number;
  /**
   * Each descriptor is the mean of the face's and its mirror image's (descriptor version 2): same-
   * person distances shrink more than different-person ones (with the 58% threshold, recall 0.90 ->
   * 0.96 on the face fixtures, still 0 wrong). Costs one more recognition pass per face.
   */
  mirrored: boolean;
  /** Which chip the recognition net sees (describe-faces.ts): dlib's (the default, versions 4-5); `box` (versions 2-3) only to measure against what was stored before. */
  chip?: ChipKind;
  /** Also describe each face on face-api's box (`boxDescriptor`): selfies, while events hold faces stored before version 4. */
  boxDescriptors?: boolean;
  /**
   * Look again, enlarged, at the head of each person (from the BIB step's person detector) where
   * no face was found: small and partly hidden faces (head-regions.ts). Only when people are given.
   */
  personHeads?: boolean;
  /** BlazeFace looks at a wide frame in square tiles (squareTiles) instead of squashed whole: 3/4 profiles of 120 px in 720p are found. */
  squareTiles: boolean;
  /**
   * BlazeFace-only faces are kept only when the tiny detector finds them again on an upscaled crop
   * around them (refineFace without its SSD fallback); the others are dropped instead of landmarked
   * on BlazeFace's box (video: such a descriptor matched its own selfie at 0.75 only, and SSD costs
   * ~300 ms a face on every frame the face is analysed in).
   */
  confirmedOnly: boolean;
}

/**
 * Photos: the tiny detector plus BlazeFace/FaceMesh for the occluded, turned and dark faces it
 * misses (docs/benchmarks.md, "Face recall with a second detector").
 */
export const PHOTO_FACE_OPTIONS: FaceAnalyzerOptions = {
  detector: 'tiny+blazeface',
  inputSize: 512,
  scoreThreshold: 0.5,
  minFaceWidth: 48,
  mirrored: true,
  squareTiles: false,
  confirmedOnly: false,
  personHeads: true,
};
/**
 * Video frames (720p and below): faces of 40 px and more; a smaller tiny-detector input than photos,
 * and BlazeFace/FaceMesh too, for the turned heads and 3/4 profiles the tiny detector misses,
 * on square tiles of the frame (a 120 px 3/4 profile in 720p was lost when the frame was squashed whole).
 */
export const VIDEO_FACE_OPTIONS: FaceAnalyzerOptions = {
  detector: 'tiny+blazeface',
  inputSize: 416,
  scoreThreshold: 0.5,
  minFaceWidth: 40,
  mirrored: true,
  squareTiles: true,
  confirmedOnly: true,
};
/** Selfies: the face is large, so a small detector input is enough (and fast). */
export const SELFIE_FACE_OPTIONS: FaceAnalyzerOptions = {
  detector: 'tiny',
  inputSize: 224,
  scoreThreshold: 0.5,
  minFaceWidth: 24,
  mirrored: true,
  squareTiles: false,
  confirmedOnly: false,
};

export interface SelfieFace {
  descriptor: Float32Array | null;
  /** The face's box-family descriptor (version 2), for faces stored before version 4. */
  boxDescriptor?: Float32Array | null;
  /** The face's quality (faceQuality), null without a face. */
  quality?: number | null;
  facesFound: number;
  /** Time in the model, from the analyzer's turn (no wait behind another selfie): the face search's wait estimate. */
  modelMs?: number;
}
