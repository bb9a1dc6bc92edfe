import { EXAMPLE_OPERATIONS, landingPage } from './landing-page';

describe('landingPage', () => {
  it('keeps the key or token in its field only: nothing written to localStorage (an old one is removed)', () => {
    const page = landingPage(EXAMPLE_OPERATIONS);
    expect(page).not.toMatch(/localStorage\.setItem|sessionStorage|localStorage\.getItem/);
    expect(page).toContain("localStorage.removeItem('apiKey')");
    expect(page).toMatch(/<input id="key" type="password"/);
  });
});
