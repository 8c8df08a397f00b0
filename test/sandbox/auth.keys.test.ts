/**
 * auth.ts: a self-generated Ed25519 key (its public key configured; the signature is the Base64
 * Ed25519 signature of query + body, percent-encoded), and the key's state on the exchange: expired
 * (0103), IP not on its access list (0202), a permission taken away (-1005).
 */
import { createPrivateKey, sign } from 'node:crypto';

import { DEMO_KEYS } from '../../sandbox';
import { DEMO_ED25519_PRIVATE_KEY } from '../../sandbox/constants';
import { hmacHex, rawRequest } from '../../sandbox/testClient';
import { useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ requestRates: false });
const CHECK = '/api/v1/account/checkApiKey';
const privateKey = createPrivateKey(DEMO_ED25519_PRIVATE_KEY);

/** Written from the description alone, sharing no code with credentials/. */
function ed25519Signature(text: string): string {
	return sign(null, Buffer.from(text), privateKey).toString('base64');
}

async function check(apiKey: string, signature: (text: string) => string, encode = true) {
	const query = `recvWindow=5000&timestamp=${Date.now()}`;
	const value = signature(query);
	const r = await rawRequest(sandbox().baseUrl, {
		method: 'GET',
		url: `${CHECK}?${query}&signature=${encode ? encodeURIComponent(value) : value}`,
		headers: { 'X-APIKEY': apiKey },
	});
	return [r.status, (r.json as { code?: string } | null)?.code];
}

describe('the demo Ed25519 key', () => {
	it('accepts its Base64 Ed25519 signature, percent-encoded', async () => {
		expect(await check(DEMO_KEYS.ed25519.apiKey, ed25519Signature)).toEqual([200, undefined]);
	});

	it('refuses 0002: an HMAC signature (even with its PEM as the secret), another key’s, an unencoded "+"', async () => {
		const hmac = (text: string) => hmacHex(DEMO_KEYS.ed25519.secret, text);
		expect(await check(DEMO_KEYS.ed25519.apiKey, hmac)).toEqual([400, '0002']);
		expect(await check(DEMO_KEYS.master.apiKey, ed25519Signature)).toEqual([400, '0002']);
		// A "+" in the query means a space: a signature sent without percent-encoding fails when it has one.
		const now = Date.now();
		let n = 0;
		while (!ed25519Signature(`recvWindow=${5000 + n}&timestamp=${now}`).includes('+')) n++;
		const text = `recvWindow=${5000 + n}&timestamp=${now}`;
		const r = await rawRequest(sandbox().baseUrl, {
			method: 'GET',
			url: `${CHECK}?${text}&signature=${ed25519Signature(text)}`,
			headers: { 'X-APIKEY': DEMO_KEYS.ed25519.apiKey },
		});
		expect([r.status, (r.json as { code: string }).code]).toEqual([400, '0002']);
		const encoded = await rawRequest(sandbox().baseUrl, {
			method: 'GET',
			url: `${CHECK}?${text}&signature=${encodeURIComponent(ed25519Signature(text))}`,
			headers: { 'X-APIKEY': DEMO_KEYS.ed25519.apiKey },
		});
		expect(encoded.status).toBe(200);
	});
});

describe('a request signed with the demo Ed25519 key, changed after signing', () => {
	const BATCH = '/api/v1/spot/batchOrders';
	const ORDER = '{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.001","price":"100"}';

	/** Signs `query + body` (no & between) with the demo Ed25519 key; the signature percent-encoded. */
	function signed(query: string, body = '') {
		const text = [query, 'recvWindow=5000', `timestamp=${Date.now()}`].filter(Boolean).join('&');
		return { query: text, body, signature: encodeURIComponent(ed25519Signature(text + body)) };
	}

	async function send(
		method: 'GET' | 'POST',
		path: string,
		query: string,
		signature: string,
		body = '',
	) {
		const r = await rawRequest(sandbox().baseUrl, {
			method,
			url: `${path}?${query}&signature=${signature}`,
			headers: {
				'X-APIKEY': DEMO_KEYS.ed25519.apiKey,
				...(body === '' ? {} : { 'Content-Type': 'application/json' }),
			},
			body: body === '' ? undefined : body,
		});
		return [r.status, (r.json as { code?: unknown } | null)?.code];
	}

	it('a query value changed is refused 0002; the query as signed passes', async () => {
		const read = signed('symbol=BTCUSDT&limit=5');
		const trades = '/api/v1/account/trades';
		expect(
			await send('GET', trades, read.query.replace('limit=5', 'limit=6'), read.signature),
		).toEqual([400, '0002']);
		expect(
			await send(
				'GET',
				trades,
				read.query.replace('symbol=BTCUSDT', 'symbol=ETHUSDT'),
				read.signature,
			),
		).toEqual([400, '0002']);
		expect(await send('GET', trades, read.query, read.signature)).toEqual([200, undefined]);
	});

	it('the body changed is refused 0002 and places nothing; the body as signed places the order', async () => {
		const batch = signed('', `[${ORDER}]`);
		for (const body of [
			`[${ORDER.replace('"0.001"', '"0.002"')}]`,
			`[${ORDER.replace('"BUY"', '"SELL"')}]`,
			`[${ORDER},${ORDER}]`,
		])
			expect(await send('POST', BATCH, batch.query, batch.signature, body)).toEqual([400, '0002']);
		expect(sandbox().ledger.orders).toHaveLength(0);
		expect(await send('POST', BATCH, batch.query, batch.signature, batch.body)).toEqual([200, 0]);
		expect(sandbox().ledger.orders).toHaveLength(1);
	});

	it('an HMAC signature for the Ed25519 key is refused 0002, for a read and for an order', async () => {
		const read = `symbol=BTCUSDT&limit=5&recvWindow=5000&timestamp=${Date.now()}`;
		for (const secret of [DEMO_KEYS.ed25519.secret, DEMO_KEYS.master.secret])
			expect(await send('GET', '/api/v1/account/trades', read, hmacHex(secret, read))).toEqual([
				400,
				'0002',
			]);
		const query = `recvWindow=5000&timestamp=${Date.now()}`;
		const body = `[${ORDER}]`;
		expect(
			await send('POST', BATCH, query, hmacHex(DEMO_KEYS.master.secret, query + body), body),
		).toEqual([400, '0002']);
		expect(sandbox().ledger.orders).toHaveLength(0);
	});
});

describe('key controls', () => {
	const hmac = (text: string) => hmacHex(DEMO_KEYS.master.secret, text);

	it('an expired key answers 0103 "APIKey expired" to a signed request; another key is unaffected', async () => {
		sandbox().expireKey(DEMO_KEYS.master.apiKey);
		expect(await check(DEMO_KEYS.master.apiKey, hmac)).toEqual([400, '0103']);
		expect(await check(DEMO_KEYS.ed25519.apiKey, ed25519Signature)).toEqual([200, undefined]);
	});

	it('a key restricted to other IPs answers 0202 "Invalid IP"; listed, or lifted, it passes', async () => {
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, ['198.51.100.1']);
		expect(await check(DEMO_KEYS.master.apiKey, hmac)).toEqual([400, '0202']);
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, ['198.51.100.1', '127.0.0.1']);
		expect(await check(DEMO_KEYS.master.apiKey, hmac)).toEqual([200, undefined]);
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, []);
		expect(await check(DEMO_KEYS.master.apiKey, hmac)).toEqual([400, '0202']);
		sandbox().restrictKeyToIps(DEMO_KEYS.master.apiKey, undefined);
		expect(await check(DEMO_KEYS.master.apiKey, hmac)).toEqual([200, undefined]);
	});
});
