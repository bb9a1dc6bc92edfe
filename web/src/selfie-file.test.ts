import { SELFIE_LONG_SIDE, selfieSize, selfieToSend, SMALL_SELFIE_BYTES } from './selfie-file';

describe('the selfie the page sends', () => {
  it('a phone photo is sent with its long side at SELFIE_LONG_SIDE, its shape kept', () => {
    expect(selfieSize(4032, 3024)).toEqual({ width: SELFIE_LONG_SIDE, height: 1200 });
    expect(selfieSize(3024, 4032)).toEqual({ width: 1200, height: SELFIE_LONG_SIDE });
  });

  it('a picture already small enough keeps its size', () => {
    expect(selfieSize(1200, 900)).toEqual({ width: 1200, height: 900 });
  });

  it('a small file is sent as chosen, without being read', async () => {
    const file = new File([new Uint8Array(SMALL_SELFIE_BYTES)], 'me.jpg', { type: 'image/jpeg' });
    expect(await selfieToSend(file)).toBe(file);
  });
});
