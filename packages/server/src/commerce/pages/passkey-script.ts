/**
 * The hosted pages' only script, served from this origin at /hosted/passkey.js (so the CSP stays
 * `script-src 'self'`, nothing from a CDN). It turns the options the server put in the form's
 * `data-passkey-options` into a `navigator.credentials` call and puts the browser's answer, as
 * JSON, in the form's `passkey` field:
 * - `data-passkey="create"`: the "Create a passkey" button registers one (approval page);
 * - `data-passkey="get"`: pressing the approve button first asks for a passkey signature.
 * Without JavaScript the form still posts, and the server refuses what needs a passkey.
 */
export const PASSKEY_SCRIPT = `(() => {
  'use strict';
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const bin = (s) => Uint8Array.from(
    atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)),
    (c) => c.charCodeAt(0));
  const ids = (list) => (list || []).map((c) => ({ ...c, id: bin(c.id) }));
  const serialize = (cred) => {
    const r = cred.response;
    const response = { clientDataJSON: b64(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = b64(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = b64(r.authenticatorData);
      response.signature = b64(r.signature);
      if (r.userHandle) response.userHandle = b64(r.userHandle);
    }
    const out = { id: cred.id, rawId: b64(cred.rawId), type: cred.type, response,
      clientExtensionResults: cred.getClientExtensionResults() };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    return JSON.stringify(out);
  };
  for (const form of document.querySelectorAll('form[data-passkey]')) {
    const options = JSON.parse(form.dataset.passkeyOptions);
    const field = form.querySelector('input[name="passkey"]');
    const status = form.querySelector('[data-passkey-status]');
    const say = (text) => { if (status) status.textContent = text; };
    if (!window.PublicKeyCredential) {
      say('This browser cannot use passkeys.');
      continue;
    }
    if (form.dataset.passkey === 'create') {
      const button = form.querySelector('[data-passkey-create]');
      button.addEventListener('click', async () => {
        try {
          const cred = await navigator.credentials.create({ publicKey: { ...options,
            challenge: bin(options.challenge), user: { ...options.user, id: bin(options.user.id) },
            excludeCredentials: ids(options.excludeCredentials) } });
          field.value = serialize(cred);
          button.disabled = true;
          say('Passkey created. Approve to keep it.');
        } catch (err) {
          say('No passkey was created (' + err.name + '). Try again, or approve without one.');
        }
      });
    } else {
      form.addEventListener('submit', async (event) => {
        const submitter = event.submitter;
        if (!submitter || submitter.value !== 'approve' || field.value) return;
        event.preventDefault();
        try {
          const cred = await navigator.credentials.get({ publicKey: { ...options,
            challenge: bin(options.challenge), allowCredentials: ids(options.allowCredentials) } });
          field.value = serialize(cred);
          form.requestSubmit(submitter);
        } catch (err) {
          say('Your passkey did not sign (' + err.name + '). Try again.');
        }
      });
    }
  }
})();
`;
