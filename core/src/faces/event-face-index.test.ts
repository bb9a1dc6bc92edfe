import { DESCRIPTOR_LENGTH, descriptorToBuffer, FACE_DESCRIPTOR_VERSION, maxDistanceFor, QUALITY_DISTANCE_BONUS, SECOND_DETECTOR_DESCRIPTOR_VERSION } from './embedding';
import { EventFaceIndex } from './face-index-cache';

const at = (offset: number) => Float32Array.from({ length: DESCRIPTOR_LENGTH }, (_, i) => (i === 0 ? offset : 0));

describe('EventFaceIndex', () => {
  it('matches faces of an older descriptor version with their own, stricter calibration', () => {
    const index = new EventFaceIndex();
    index.add('1', 'photo-current', descriptorToBuffer(at(0.55)), FACE_DESCRIPTOR_VERSION);
    index.add('2', 'photo-legacy-far', descriptorToBuffer(at(0.55)), 1);
    index.add('3', 'photo-legacy-near', descriptorToBuffer(at(0.53)), 1);
    const hits = index.search(at(0), 0.56, 100).map((h) => h.ref).sort();
    expect(hits).toEqual(['photo-current', 'photo-legacy-near']);
  });

  it('keeps one hit per photo, its nearest face', () => {
    const index = new EventFaceIndex();
    index.add('1', 'p', descriptorToBuffer(at(0.3)));
    index.add('2', 'p', descriptorToBuffer(at(0.1)));
    const hits = index.search(at(0), 0.56, 100);
    expect(hits).toHaveLength(1);
    expect(hits[0].distance).toBeCloseTo(0.1, 5);
  });
});

describe('maxDistanceFor', () => {
  it('is the threshold distance for the current version and 0.02 nearer for version 1', () => {
    expect(maxDistanceFor(FACE_DESCRIPTOR_VERSION, 0.56)).toBe(0.56);
    expect(maxDistanceFor(1, 0.56)).toBeCloseTo(0.54, 6);
  });

  it('is 0.04 nearer for faces found by the second detector only (version 3), which the index applies', () => {
    expect(maxDistanceFor(SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56)).toBeCloseTo(0.52, 6);
    const index = new EventFaceIndex();
    index.add('1', 'tiny-face', descriptorToBuffer(at(0.54)), FACE_DESCRIPTOR_VERSION, null);
    index.add('2', 'blaze-face', descriptorToBuffer(at(0.54)), SECOND_DETECTOR_DESCRIPTOR_VERSION, null);
    index.add('3', 'blaze-face-near', descriptorToBuffer(at(0.5)), SECOND_DETECTOR_DESCRIPTOR_VERSION, null);
    expect(index.search(at(0), 0.56, 100).map((h) => h.ref).sort()).toEqual(['blaze-face-near', 'tiny-face']);
  });
});

describe('EventFaceIndex: quality and strangers', () => {
  it('lets a face of quality 1 be up to QUALITY_DISTANCE_BONUS farther; faces stored without a quality get nothing', () => {
    expect(maxDistanceFor(FACE_DESCRIPTOR_VERSION, 0.56, 1)).toBeCloseTo(0.56 + QUALITY_DISTANCE_BONUS, 6);
    expect(maxDistanceFor(FACE_DESCRIPTOR_VERSION, 0.56, 0.5)).toBeCloseTo(0.56 + QUALITY_DISTANCE_BONUS / 2, 6);
    expect(maxDistanceFor(SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56, 1)).toBeCloseTo(0.52 + QUALITY_DISTANCE_BONUS, 6);
    expect(maxDistanceFor(1, 0.56, 1)).toBeCloseTo(0.54, 6);
    const index = new EventFaceIndex();
    const beyond = 0.56 + QUALITY_DISTANCE_BONUS / 2;
    index.add('1', 'good-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, 1);
    index.add('2', 'poor-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, 0);
    index.add('3', 'old-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, null);
    expect(index.search(at(0), 0.56, 100).map((h) => h.ref)).toEqual(['good-face']);
  });

  it('drops a borderline face that lies nearer to a face surely of someone else, not one of the same photo', () => {
    const index = new EventFaceIndex();
    index.add('1', 'look-alike', descriptorToBuffer(at(0.54)));
    index.add('2', 'stranger', descriptorToBuffer(at(0.9)));
    index.add('3', 'lone', descriptorToBuffer(at(-0.54)));
    index.add('4', 'lone', descriptorToBuffer(at(-0.9)));
    expect(index.search(at(0), 0.56, 100).map((h) => h.ref)).toEqual(['lone']);
  });
});

describe('EventFaceIndex groups (video face tracks)', () => {
  it('brings every sighting of a track when one of them matches, and nothing of other tracks', () => {
    const index = new EventFaceIndex();
    index.add('1', 'v@10', descriptorToBuffer(at(0.1)), FACE_DESCRIPTOR_VERSION, 'v#1');
    index.add('2', 'v@10.5', descriptorToBuffer(at(0.9)), FACE_DESCRIPTOR_VERSION, 'v#1'); // the head turned: no match alone
    index.add('3', 'v@11', descriptorToBuffer(at(0.2)), FACE_DESCRIPTOR_VERSION, 'v#1');
    index.add('4', 'v@10', descriptorToBuffer(at(0.95)), FACE_DESCRIPTOR_VERSION, 'v#2');
    index.add('5', 'w@3', descriptorToBuffer(at(0.9)), FACE_DESCRIPTOR_VERSION, null);
    const refs = index.search(at(0), 0.56, 100).map((h) => h.ref).sort();
    expect(refs).toEqual(['v@10', 'v@10.5', 'v@11']);
  });
});
