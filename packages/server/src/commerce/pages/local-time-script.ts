/** Where the dashboard's one script is served from (same origin, so its CSP names only 'self'). */
export const LOCAL_TIME_SCRIPT_PATH = '/dashboard/local-time.js';

/**
 * Progressive enhancement for times: the HTML carries each instant as ISO UTC in
 * `<time datetime>`, readable without a script; this rewrites them in the viewer's own zone
 * and names that zone, leaving the UTC instant in the title for copying.
 */
export const LOCAL_TIME_SCRIPT = `(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  for (const el of document.querySelectorAll('time[datetime]')) {
    const at = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(at.getTime())) continue;
    el.title = el.getAttribute('datetime');
    el.textContent = fmt.format(at);
  }
  for (const el of document.querySelectorAll('[data-zone]')) el.textContent = zone;
})();
`;
