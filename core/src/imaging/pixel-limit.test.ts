import { oversizeReason } from './pixel-limit';

describe('the image pixel limit', () => {
  it('names the size and the limit of a refused image', () => {
    expect(oversizeReason(16000, 16000, 50_000_000)).toBe(
      'image of 16000x16000 (256 megapixels) is over the limit of 50 megapixels',
    );
    expect(oversizeReason(7000, 7000, 50_000_000)).toBeNull();
  });
});
