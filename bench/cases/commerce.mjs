import { join } from 'node:path';
import { keyFor, measure, row, startBaseline, startServer } from '../lib.mjs';

/** Commerce: an unauthenticated health check, and an authenticated offer lookup. */
export default async function commerceBench() {
  const server = await startServer();
  let baseline;
  try {
    baseline = await startBaseline(join(server.dataDir, 'commerce.sqlite'));
    const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'bench']);
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${server.commerce}/v1/offers`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://protocol-shop.sandbox.test/products/bench-mug' }),
    });
    const offer = await created.json();
    if (!offer.id) throw new Error(`could not create an offer: ${JSON.stringify(offer)}`);

    const rows = [];
    const bareHealth = await measure({ url: `${baseline.url}/health` });
    rows.push(row('bare express `GET /health`', bareHealth));
    rows.push(
      row('commerce `GET /v1/health`', await measure({ url: `${server.commerce}/v1/health` }), bareHealth),
    );
    const bareOffer = await measure({ url: `${baseline.url}/offers/${offer.id}`, headers: auth });
    rows.push(row('bare express: key lookup + offer row', bareOffer));
    rows.push(
      row(
        'commerce `GET /v1/offers/{id}` (API key)',
        await measure({ url: `${server.commerce}/v1/offers/${offer.id}`, headers: auth }),
        bareOffer,
      ),
    );
    return rows;
  } finally {
    await baseline?.stop();
    await server.stop();
  }
}
