// A browser without JavaScript, for the hosted pages' tests.

/** A browser without JavaScript: GET the page, read the form, POST it urlencoded, do not follow redirects. */
export async function openForm(url: string) {
  const res = await fetch(url);
  const page = await res.text();
  const inputs = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
    m[1],
    m[2],
  ]);
  const checked = [...page.matchAll(/name="connect" value="([^"]+)" checked/g)].map((m) => m[1] as string);
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  return { res, page, inputs: inputs as [string, string][], checked, action };
}

export async function submit(
  base: string,
  action: string,
  fields: [string, string][],
  headers: Record<string, string> = {},
) {
  return fetch(`${base}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export const fromHtml = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
