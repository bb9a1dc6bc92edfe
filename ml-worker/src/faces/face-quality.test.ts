import { faceQuality, FaceQualitySignals, landmarkSignals, Point } from './face-quality';

/** 68 landmarks of an idealised face: eyes at y=40, nose tip at (noseX, 60), mouth corners at y=80. */
function face({ eyeHalf = 20, noseX = 50, mouthY = 80 } = {}): Point[] {
  const points: Point[] = Array.from({ length: 68 }, () => ({ x: 50, y: 60 }));
  for (let i = 36; i < 42; i++) points[i] = { x: 50 - eyeHalf + (i - 38.5), y: 40 };
  for (let i = 42; i < 48; i++) points[i] = { x: 50 + eyeHalf + (i - 44.5), y: 40 };
  points[30] = { x: noseX, y: 60 };
  points[48] = { x: 35, y: mouthY };
  points[54] = { x: 65, y: mouthY };
  return points;
}

const good: FaceQualitySignals = {
  yaw: 0.05,
  proportion: 1,
  eyeDistancePx: 40,
  score: 0.9,
  contrast: 50,
  sharpness: 20,
};

describe('landmarkSignals', () => {
  it('a frontal face: no yaw, eye distance about the eye-to-mouth distance', () => {
    const s = landmarkSignals(face());
    expect(s.yaw).toBeCloseTo(0, 5);
    expect(s.eyeDistancePx).toBeCloseTo(40, 5);
    expect(s.proportion).toBeCloseTo(1, 5);
  });

  it('a turned head: the nose tip moves towards an eye (yaw), the eyes come closer (proportion)', () => {
    const turned = landmarkSignals(face({ eyeHalf: 14, noseX: 60 }));
    expect(turned.yaw).toBeCloseTo(20 / 28, 5);
    expect(turned.proportion).toBeCloseTo(0.7, 5);
  });

  it('refuses anything but 68 points', () => {
    expect(() => landmarkSignals(face().slice(0, 5))).toThrow(/68 face landmarks/);
  });
});

describe('faceQuality', () => {
  it('is 1 for a frontal, large, sharp, well-lit face', () => {
    expect(faceQuality(good)).toBe(1);
  });

  it('is the weakest signal: any one poor signal lowers it', () => {
    expect(faceQuality({ ...good, proportion: 0.75 })).toBeCloseTo(0.25, 3); // squeezed or turned
    expect(faceQuality({ ...good, yaw: 0.8 })).toBe(0); // a profile
    expect(faceQuality({ ...good, eyeDistancePx: 18 })).toBeCloseTo(0.5, 3); // small
    expect(faceQuality({ ...good, score: 0.3 })).toBe(0);
    expect(faceQuality({ ...good, contrast: 5 })).toBe(0); // dark, flat
    expect(faceQuality({ ...good, sharpness: 2 })).toBe(0); // blurred
  });
});
