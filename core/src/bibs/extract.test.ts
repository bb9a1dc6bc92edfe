import { extractBibs } from './extract';

const box = (text: string, confidence = 0.99) => ({ text, confidence });

describe('extractBibs', () => {
  it('keeps whole 2-5 digit tokens read with confidence', () => {
    expect([...extractBibs([box('1432 PRCM'), box('#552.'), box('N°77'), box('46')]).keys()].sort()).toEqual(['1432', '46', '552', '77']);
  });

  it('refuses plates, distances, dates, leading zeros, lone digits and long numbers', () => {
    expect([...extractBibs([box('DA-744-KJ'), box('10km'), box('2024-05-17'), box('0552'), box('7'), box('123456')]).keys()]).toEqual([]);
  });

  it('drops unsure reads and numbers contained in a longer one of the same photo', () => {
    expect([...extractBibs([box('1480', 0.85), box('2791'), box('279', 0.99), box('27', 0.4)]).keys()]).toEqual(['2791']);
  });

  it('keeps the best confidence of a bib seen twice', () => {
    expect(extractBibs([box('365', 0.96), box('365', 0.995)]).get('365')).toBe(0.995);
  });
});
