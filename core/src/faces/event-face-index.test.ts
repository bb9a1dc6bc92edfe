import {
  BOX_DESCRIPTOR_VERSION,
  BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION,
  bufferToSelfieDescriptors,
  CHIP_DISTANCE_SHIFT,
  DESCRIPTOR_LENGTH,
  descriptorFamily,
  descriptorToBuffer,
  FACE_DESCRIPTOR_VERSION,
  maxDistanceFor,
  QUALITY_DISTANCE_BONUS,
  SECOND_DETECTOR_DESCRIPTOR_VERSION,
  SelfieDescriptors,
  selfieDescriptorsToBuffer,
} from './embedding';
import { EventFaceIndex } from './face-index-cache';

const at = (offset: number, axis = 0) =>
  Float32Array.from({ length: DESCRIPTOR_LENGTH }, (_, i) => (i === axis ? offset : 0));
/** A selfie with a chip-family descriptor only, or a box-family one only. */
const chip = (offset: number): SelfieDescriptors => ({ chip: at(offset), box: null });
const box = (offset: number): SelfieDescriptors => ({ chip: null, box: at(offset) });

describe('EventFaceIndex: descriptor families (version 4 chips, versions 1-3 boxes)', () => {
  it("never compares a selfie's chip descriptor with a box-family face, nor its box descriptor with a chip-family face", () => {
    const index = new EventFaceIndex();
    index.add('1', 'old-photo', descriptorToBuffer(at(1, 0)), BOX_DESCRIPTOR_VERSION);
    index.add('2', 'new-photo', descriptorToBuffer(at(1, 1)), FACE_DESCRIPTOR_VERSION);
    // The chip descriptor sits exactly on the old face, the box descriptor exactly on the new one: neither matches.
    expect(index.search({ chip: at(1, 0), box: at(1, 1) }, 0.56, 100)).toEqual([]);
    expect(index.search(chip(1), 0.56, 100)).toEqual([]);
    // Each family with its own descriptor: both match.
    expect(
      index
        .search({ chip: at(1, 1), box: at(1, 0) }, 0.56, 100)
        .map((h) => h.ref)
        .sort(),
    ).toEqual(['new-photo', 'old-photo']);
  });

  it("matches an event in the middle of re-embedding: each photo by the descriptor of its own faces' family, nearest first", () => {
    const index = new EventFaceIndex();
    index.add('1', 'p1', descriptorToBuffer(at(0.3)), BOX_DESCRIPTOR_VERSION);
    index.add('2', 'p2', descriptorToBuffer(at(0.1)), FACE_DESCRIPTOR_VERSION);
    index.add('3', 'p3', descriptorToBuffer(at(0.2)), SECOND_DETECTOR_DESCRIPTOR_VERSION);
    expect(index.size).toBe(3);
    expect(index.boxFaces).toBe(1);
    expect(index.search({ chip: at(0), box: at(0) }, 0.56, 100).map((h) => h.ref)).toEqual(['p2', 'p3', 'p1']);
  });

  it("reports chip-family distances on the threshold's scale: CHIP_DISTANCE_SHIFT nearer", () => {
    const index = new EventFaceIndex();
    index.add('1', 'p', descriptorToBuffer(at(0.3)), FACE_DESCRIPTOR_VERSION);
    expect(index.search(chip(0), 0.56, 100)[0].distance).toBeCloseTo(0.3 - CHIP_DISTANCE_SHIFT, 5);
  });

  it('sorts versions into families', () => {
    expect([1, 2, 3, 4, 5].map(descriptorFamily)).toEqual(['box', 'box', 'box', 'chip', 'chip']);
  });
});

describe('stored selfie descriptors', () => {
  it("round-trip both families; a 512-byte embedding stored before version 4 is the box family's", () => {
    const stored = selfieDescriptorsToBuffer({ chip: at(0.1), box: at(0.2) })!;
    expect(stored).toHaveLength(1024);
    expect(bufferToSelfieDescriptors(stored)).toEqual({ chip: at(0.1), box: at(0.2) });
    expect(bufferToSelfieDescriptors(descriptorToBuffer(at(0.3)))).toEqual({ chip: null, box: at(0.3) });
    // Without a box descriptor (the event held no box faces): still 1024 bytes, so never read as a box descriptor.
    expect(bufferToSelfieDescriptors(selfieDescriptorsToBuffer({ chip: at(0.1), box: null }))).toEqual({
      chip: at(0.1),
      box: null,
    });
    expect(selfieDescriptorsToBuffer({ chip: null, box: at(0.3) })).toEqual(descriptorToBuffer(at(0.3)));
    expect(bufferToSelfieDescriptors(null)).toBeNull();
    expect(() => bufferToSelfieDescriptors(Buffer.alloc(100))).toThrow(/512 or 1024 bytes/);
  });
});

describe('EventFaceIndex', () => {
  it('matches box faces of an older descriptor version with their own, stricter calibration', () => {
    const index = new EventFaceIndex();
    index.add('1', 'photo-v2', descriptorToBuffer(at(0.55)), BOX_DESCRIPTOR_VERSION);
    index.add('2', 'photo-legacy-far', descriptorToBuffer(at(0.55)), 1);
    index.add('3', 'photo-legacy-near', descriptorToBuffer(at(0.53)), 1);
    const hits = index
      .search(box(0), 0.56, 100)
      .map((h) => h.ref)
      .sort();
    expect(hits).toEqual(['photo-legacy-near', 'photo-v2']);
  });

  it('keeps one hit per photo, its nearest face', () => {
    const index = new EventFaceIndex();
    index.add('1', 'p', descriptorToBuffer(at(0.3)));
    index.add('2', 'p', descriptorToBuffer(at(0.1)));
    const hits = index.search(chip(0), 0.56, 100);
    expect(hits).toHaveLength(1);
    expect(hits[0].distance).toBeCloseTo(0.1 - CHIP_DISTANCE_SHIFT, 5);
  });
});

describe('maxDistanceFor', () => {
  it('is the threshold distance for version 2, 0.02 nearer for version 1, CHIP_DISTANCE_SHIFT farther for version 4', () => {
    expect(maxDistanceFor(BOX_DESCRIPTOR_VERSION, 0.56)).toBe(0.56);
    expect(maxDistanceFor(1, 0.56)).toBeCloseTo(0.54, 6);
    expect(maxDistanceFor(FACE_DESCRIPTOR_VERSION, 0.56)).toBeCloseTo(0.56 + CHIP_DISTANCE_SHIFT, 6);
  });

  it('is 0.04 nearer for faces found by the second detector only (versions 3 and 5), which the index applies', () => {
    expect(maxDistanceFor(BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56)).toBeCloseTo(0.52, 6);
    expect(maxDistanceFor(SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56)).toBeCloseTo(0.52 + CHIP_DISTANCE_SHIFT, 6);
    const index = new EventFaceIndex();
    index.add('1', 'tiny-face', descriptorToBuffer(at(0.54)), BOX_DESCRIPTOR_VERSION, null);
    index.add('2', 'blaze-face', descriptorToBuffer(at(0.54)), BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION, null);
    index.add('3', 'blaze-face-near', descriptorToBuffer(at(0.5)), BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION, null);
    expect(
      index
        .search(box(0), 0.56, 100)
        .map((h) => h.ref)
        .sort(),
    ).toEqual(['blaze-face-near', 'tiny-face']);
  });
});

describe('EventFaceIndex: quality and strangers', () => {
  it('lets a face of quality 1 be up to QUALITY_DISTANCE_BONUS farther; faces stored without a quality get nothing', () => {
    expect(maxDistanceFor(BOX_DESCRIPTOR_VERSION, 0.56, 1)).toBeCloseTo(0.56 + QUALITY_DISTANCE_BONUS, 6);
    expect(maxDistanceFor(BOX_DESCRIPTOR_VERSION, 0.56, 0.5)).toBeCloseTo(0.56 + QUALITY_DISTANCE_BONUS / 2, 6);
    expect(maxDistanceFor(BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION, 0.56, 1)).toBeCloseTo(
      0.52 + QUALITY_DISTANCE_BONUS,
      6,
    );
    expect(maxDistanceFor(1, 0.56, 1)).toBeCloseTo(0.54, 6);
    const index = new EventFaceIndex();
    const beyond = 0.56 + CHIP_DISTANCE_SHIFT + QUALITY_DISTANCE_BONUS / 2;
    index.add('1', 'good-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, 1);
    index.add('2', 'poor-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, 0);
    index.add('3', 'old-face', descriptorToBuffer(at(beyond)), FACE_DESCRIPTOR_VERSION, null, null);
    expect(index.search(chip(0), 0.56, 100).map((h) => h.ref)).toEqual(['good-face']);
  });

  it('drops a borderline face that lies nearer to a face surely of someone else, not one of the same photo', () => {
    const index = new EventFaceIndex();
    index.add('1', 'look-alike', descriptorToBuffer(at(0.54)));
    index.add('2', 'stranger', descriptorToBuffer(at(0.9)));
    index.add('3', 'lone', descriptorToBuffer(at(-0.54)));
    index.add('4', 'lone', descriptorToBuffer(at(-0.9)));
    expect(index.search(chip(0), 0.56, 100).map((h) => h.ref)).toEqual(['lone']);
  });

  it("looks for strangers within the face's own family only", () => {
    const index = new EventFaceIndex();
    index.add('1', 'look-alike', descriptorToBuffer(at(0.54)), BOX_DESCRIPTOR_VERSION);
    index.add('2', 'stranger-of-the-other-family', descriptorToBuffer(at(0.9)), FACE_DESCRIPTOR_VERSION);
    expect(index.search({ chip: at(5), box: at(0) }, 0.56, 100).map((h) => h.ref)).toEqual(['look-alike']);
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
    const refs = index
      .search(chip(0), 0.56, 100)
      .map((h) => h.ref)
      .sort();
    expect(refs).toEqual(['v@10', 'v@10.5', 'v@11']);
  });
});
