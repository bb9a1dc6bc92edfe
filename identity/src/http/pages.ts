/** The provider's own pages: sign-in and set-password forms. Plain HTML, no script, one stylesheet. */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const STYLESHEET_PATH = '/assets/identity.css';

export const STYLESHEET = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1d2330}
main{max-width:24rem;margin:10vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 2px 12px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input{width:100%;padding:.6rem;font-size:1rem;border:1px solid #8a93a3;border-radius:6px}
button{margin-top:1.2rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:6px;background:#1f5fbf;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.error{background:#fde8e8;color:#8a1010;padding:.6rem;border-radius:6px}.note{color:#4a5262;font-size:.9rem}
`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head><body><main>${body}</main></body></html>`;
}

export function signInPage(opts: { action: string; email?: string; error?: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in to the organisation dashboard</h1>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="${escapeHtml(opts.action)}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(opts.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<p class="note">No password yet? Ask an admin of your organisation for a set-password link.</p>`,
  );
}

export function setPasswordPage(opts: { token: string; email: string; error?: string; minLength: number }): string {
  return page(
    'Set your password',
    `<h1>Set your password</h1><p>For <strong>${escapeHtml(opts.email)}</strong></p>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="/set-password"><input type="hidden" name="token" value="${escapeHtml(opts.token)}">
<label for="password">New password (at least ${opts.minLength} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${opts.minLength}" required>
<button type="submit">Set password</button></form>`,
  );
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}`,
  );
}

/** oidc-provider's end-session confirmation: its form (with its CSRF field) and our button. */
export function signOutPage(providerForm: string): string {
  return page(
    'Sign out',
    `<h1>Sign out</h1><p>Sign out of the identity provider too?</p>${providerForm}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>`,
  );
}
