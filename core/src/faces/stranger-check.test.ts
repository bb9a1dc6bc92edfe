import { DESCRIPTOR_LENGTH } from './embedding';
import { FaceMatrix } from './face-matrix';
import { nearerToStranger } from './stranger-check';

/** A descriptor at (x, y) in the first two dimensions. */
const at = (x: number, y = 0) =>
  Float32Array.from({ length: DESCRIPTOR_LENGTH }, (_, i) => (i === 0 ? x : i === 1 ? y : 0));
const otherPhotos = () => false;

describe('nearerToStranger', () => {
  const selfie = at(0);

  it('drops a borderline match that lies nearer to a face surely of someone else', () => {
    const m = new FaceMatrix();
    const candidate = m.add(at(0.54)); // 0.54 from the selfie: within the default threshold
    m.add(at(0.9)); // 0.36 from the candidate, 0.9 from the selfie: a stranger
    expect(nearerToStranger(m, selfie, candidate, 0.54, otherPhotos)).toBe(true);
  });

  it('keeps it when its nearer neighbours are not surely someone else', () => {
    const m = new FaceMatrix();
    const candidate = m.add(at(0.54));
    m.add(at(0.6, 0.1)); // near the candidate, but 0.61 from the selfie: maybe the same person
    m.add(at(0.54, 0.8)); // a stranger (0.97 from the selfie), but farther from the candidate than the selfie
    expect(nearerToStranger(m, selfie, candidate, 0.54, otherPhotos)).toBe(false);
  });

  it('never checks sure matches, and never counts faces of the same photo or left out', () => {
    const m = new FaceMatrix();
    const sure = m.add(at(0.4));
    m.add(at(0.75));
    expect(nearerToStranger(m, selfie, sure, 0.4, otherPhotos)).toBe(false);
    const candidate = m.add(at(0.54));
    const samePhoto = m.add(at(0.9));
    expect(
      nearerToStranger(
        m,
        selfie,
        candidate,
        0.54,
        (a, b) => [a, b].includes(samePhoto) && [a, b].includes(candidate),
        (row) => row === 1,
      ),
    ).toBe(false);
    expect(nearerToStranger(m, selfie, candidate, 0.54, otherPhotos)).toBe(true);
  });
});
