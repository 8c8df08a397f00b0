import { createHmac } from 'node:crypto';

import axios from 'axios';
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import {
	KEY_ONLY_HEADER,
	TradingServiceApi,
} from '../../credentials/TradingServiceApi.credentials';
import { DEMO_KEYS, type DemoKey, type Sandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { useSandbox } from '../support/sandbox';
import { runCredentialTest } from './support';

const credential = new TradingServiceApi();
const SECRET = DEMO_KEYS.master.secret;

/** A verifier written from spec §5 alone: query (signature pair removed) then body, no `&`. */
function verify(url: string, body: string, secret: string): { ok: boolean; query: string } {
	const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
	const pairs = query.split('&');
	const signaturePair = pairs.find((pair) => pair.startsWith('signature='));
	const signedText = pairs.filter((pair) => !pair.startsWith('signature=')).join('&') + body;
	const expected = createHmac('sha256', secret).update(signedText).digest('hex');
	return { ok: signaturePair === `signature=${expected}`, query };
}

async function authenticate(options: IHttpRequestOptions & IDataObject, data: IDataObject = {}) {
	return (await credential.authenticate!(
		{
			apiKey: DEMO_KEYS.master.apiKey,
			secretKey: SECRET,
			baseUrl: 'http://127.0.0.1:1/',
			recvWindow: 5000,
			...data,
		},
		options,
	)) as IHttpRequestOptions & IDataObject;
}

function param(url: string, key: string): string | undefined {
	const query = url.slice(url.indexOf('?') + 1);
	return query
		.split('&')
		.find((pair) => pair.startsWith(`${key}=`))
		?.slice(key.length + 1);
}

describe('TradingServiceApi credential', () => {
	it('describes its fields: both keys masked, Base URL required with no default, Receive Window 1–8000 ms (UAE rule: receive window over 8000 refused)', () => {
		const byName = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		);
		expect(byName.secretKey.typeOptions?.password).toBe(true);
		expect(byName.apiKey.typeOptions?.password).toBe(true);
		expect(byName.baseUrl.required).toBe(true);
		expect(byName.baseUrl.default).toBe('');
		expect(byName.recvWindow.default).toBe(5000);
		expect(byName.recvWindow.typeOptions).toEqual({ minValue: 1, maxValue: 8000 });
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
	});

	it('asks for its fields in the order users fill them in, Base URL first, with labels in n8n style', () => {
		expect(
			credential.properties
				.filter((property) => property.type !== 'notice')
				.map((property) => property.displayName),
		).toEqual([
			'Base URL',
			'Stream URL',
			'Authentication',
			'API Key',
			'Secret Key',
			'Private Key',
			'Receive Window (Milliseconds)',
			'Order Requests per Second',
			'Query Requests per Second',
			'n8n Processes Sharing This Key',
			'Weight Budget',
			'Weight Window (Seconds)',
		]);
		expect(credential.properties.find((p) => p.name === 'recvWindow')?.description).toMatch(
			/in milliseconds/,
		);
	});

	it('says the unit of every number, and what a Weight Budget of 0 means; descriptions in sentence case', () => {
		const numbers = credential.properties.filter((property) => property.type === 'number');
		const units = /milliseconds|seconds|per second|a count|weight/i;
		for (const property of numbers)
			expect(`${property.displayName}: ${property.description}`).toMatch(units);
		const budget = credential.properties.find((p) => p.name === 'weightBudget')!;
		expect(budget.description).toMatch(/^0 \(the default\) means no budget/);
		// The credential form shows a hint under the field (the description is behind the label's "?").
		expect(budget.hint).toMatch(/^0 \(the default\): no budget/);
		expect(credential.properties.find((p) => p.name === 'recvWindow')?.hint).toMatch(
			/^In milliseconds/,
		);
		expect(
			credential.properties.find((p) => p.name === 'weightWindowSeconds')?.description,
		).toMatch(/seconds/);
		for (const property of credential.properties)
			if (property.type !== 'notice') expect(property.description).toMatch(/^[A-Z0-9]/);
		// The saved names never change: a credential saved before still fills every field.
		expect(credential.properties.map((property) => property.name)).toEqual([
			'baseUrl',
			'movedHostNotice',
			'streamUrl',
			'signatureMethod',
			'apiKey',
			'secretKey',
			'privateKey',
			'recvWindow',
			'orderRequestsPerSecond',
			'queryRequestsPerSecond',
			'processesSharingKey',
			'weightBudget',
			'weightWindowSeconds',
		]);
	});

	it('signs a GET: query serialised in order, recvWindow and timestamp added, X-APIKEY set, qs removed', async () => {
		const before = Date.now();
		const signed = await authenticate({
			method: 'GET',
			url: '/api/v1/account/balanceFlow',
			qs: { startTime: '1', endTime: '2', flowType: 32 },
		});
		expect(signed.qs).toBeUndefined();
		expect(signed.baseURL).toBe('http://127.0.0.1:1');
		expect(signed.headers).toEqual({ 'X-APIKEY': DEMO_KEYS.master.apiKey });
		expect(signed.url).toMatch(
			/^\/api\/v1\/account\/balanceFlow\?startTime=1&endTime=2&flowType=32&recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
		);
		expect(Number(param(signed.url, 'timestamp'))).toBeGreaterThanOrEqual(before);
		expect(verify(signed.url, '', SECRET).ok).toBe(true);
		expect(verify(signed.url, '', 'another secret').ok).toBe(false);
	});

	it('serialises a JSON body once and signs query + body with no & between', async () => {
		const orders = [
			{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '50000' },
		];
		const signed = await authenticate({
			method: 'POST',
			url: '/api/v1/spot/batchOrders',
			body: orders,
			json: true,
		});
		expect(signed.body).toBe(JSON.stringify(orders));
		expect((signed.headers as IDataObject)['Content-Type']).toBe('application/json');
		expect(verify(signed.url, signed.body as string, SECRET).ok).toBe(true);
		// The same signature with an `&` joining query and body would be another text.
		const query = verify(signed.url, '', SECRET).query.replace(/&signature=.*/, '');
		const withAmpersand = createHmac('sha256', SECRET)
			.update(`${query}&${signed.body as string}`)
			.digest('hex');
		expect(param(signed.url, 'signature')).not.toBe(withAmpersand);
	});

	it('serialises a form body with RFC 3986 encoding when asked for one', async () => {
		const signed = await authenticate({
			method: 'POST',
			url: 'http://127.0.0.1:9/api/v1/spot/new/order?symbol=BTCUSDT',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: { side: 'BUY', note: "a b&c=d/€!'()*" },
		});
		expect(signed.baseURL).toBeUndefined();
		expect(signed.body).toBe('side=BUY&note=a%20b%26c%3Dd%2F%E2%82%AC%21%27%28%29%2A');
		expect(signed.headers).toEqual({
			'Content-Type': 'application/x-www-form-urlencoded',
			'X-APIKEY': DEMO_KEYS.master.apiKey,
		});
		expect(verify(signed.url, signed.body as string, SECRET).ok).toBe(true);
	});

	it('handles the legacy request shape (uri, form) of older nodes', async () => {
		const signed = await authenticate({
			method: 'POST',
			uri: 'http://127.0.0.1:9/api/v1/spot/new/order',
			form: { symbol: 'BTCUSDT', side: 'SELL' },
		} as never);
		expect(signed.form).toBeUndefined();
		expect(signed.url).toBeUndefined();
		expect(signed.body).toBe('symbol=BTCUSDT&side=SELL');
		expect(verify(signed.uri as string, signed.body as string, SECRET).ok).toBe(true);
	});

	it('signs again when given already signed options: old timestamp and signature replaced, nothing doubled', async () => {
		const first = await authenticate({
			method: 'POST',
			url: '/api/v1/spot/batchOrders',
			qs: { recvWindow: 20000 },
			body: [{ a: 1 }],
		});
		await new Promise((resolve) => setTimeout(resolve, 5));
		const second = await authenticate(first);
		expect(second.body).toBe(first.body);
		expect(second.url.match(/timestamp=/g)).toHaveLength(1);
		expect(second.url.match(/signature=/g)).toHaveLength(1);
		expect(second.url.match(/recvWindow=/g)).toHaveLength(1);
		expect(param(second.url, 'recvWindow')).toBe('20000');
		expect(Number(param(second.url, 'timestamp'))).toBeGreaterThan(
			Number(param(first.url, 'timestamp')),
		);
		expect(verify(second.url, second.body as string, SECRET).ok).toBe(true);
	});

	it('leaves out an empty body', async () => {
		const signed = await authenticate({ method: 'POST', url: '/x', body: {} });
		expect(signed.body).toBeUndefined();
		expect(verify(signed.url, '', SECRET).ok).toBe(true);
	});

	it('sends a request marked key-only with the API key alone, the mark removed; signs an unmarked one, even to a market-data path', async () => {
		const keyOnly = await authenticate({
			method: 'GET',
			url: '/quote/v1/depth',
			qs: { symbol: 'BTCUSDT' },
			headers: { [KEY_ONLY_HEADER]: '1' },
		});
		expect(keyOnly.headers).toEqual({ 'X-APIKEY': DEMO_KEYS.master.apiKey });
		expect(keyOnly.url).toBe('/quote/v1/depth');
		expect(keyOnly.qs).toEqual({ symbol: 'BTCUSDT' });
		expect(keyOnly.baseURL).toBe('http://127.0.0.1:1');
		const unmarked = await authenticate({
			method: 'GET',
			url: '/quote/v1/depth',
			qs: { symbol: 'BTCUSDT' },
		});
		expect(unmarked.headers).toEqual({ 'X-APIKEY': DEMO_KEYS.master.apiKey });
		expect(unmarked.url).toMatch(
			/^\/quote\/v1\/depth\?symbol=BTCUSDT&recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
		);
		expect(verify(unmarked.url, '', SECRET).ok).toBe(true);
	});

	it('tests the credential with a signed GET /api/v1/account/checkApiKey and no parameters', () => {
		const request = credential.test.request;
		expect(request.url).toBe('/api/v1/account/checkApiKey');
		expect(request.method).toBe('GET');
		expect(request.qs).toBeUndefined();
	});

	describe('against the sandbox', () => {
		const sandbox = useSandbox({});

		async function send(options: IHttpRequestOptions & IDataObject, secret = SECRET) {
			const signed = await authenticate(options, { baseUrl: sandbox().baseUrl, secretKey: secret });
			const response = await axios.request({
				method: signed.method,
				baseURL: signed.baseURL,
				url: signed.url,
				data: signed.body,
				headers: signed.headers as Record<string, string>,
				validateStatus: () => true,
				transformResponse: (raw) => raw,
			});
			return {
				status: response.status,
				body: JSON.parse(response.data as string) as IDataObject,
				signed,
			};
		}

		it('is accepted for a read, a JSON batch and a form order, and again after a second pass', async () => {
			const now = Date.now();
			const read = await send({
				method: 'GET',
				url: '/api/v1/account/balanceFlow',
				qs: { startTime: String(now - 60000), endTime: String(now), limit: '1', flowType: 51 },
			});
			expect(read.status).toBe(200);
			const batch = await send({
				method: 'POST',
				url: '/api/v1/spot/batchOrders',
				body: [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.001', price: '100' }],
			});
			expect(batch.status).toBe(200);
			expect(batch.body.code).toBe(0);
			const form = await send({
				method: 'POST',
				url: '/api/v1/spot/new/order?symbol=BTCUSDT&side=BUY',
				headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
				body: { type: 'LIMIT', quantity: '0.001', price: '100' },
			});
			expect(form.status).toBe(200);
			const again = await authenticate(read.signed, { baseUrl: sandbox().baseUrl });
			const replay = await axios.get(`${sandbox().baseUrl}${again.url}`, {
				headers: again.headers as Record<string, string>,
				validateStatus: () => true,
			});
			expect(replay.status).toBe(200);
		});

		it('is refused with a wrong secret, and a tampered parameter is refused', async () => {
			const wrong = await send(
				{
					method: 'GET',
					url: '/api/v1/account/balanceFlow',
					qs: { startTime: '1', endTime: '2', flowType: 51 },
				},
				'not-the-secret',
			);
			expect(wrong.status).toBe(400);
			expect(wrong.body.code).toBe('0002');
			const signed = await authenticate(
				{
					method: 'GET',
					url: '/api/v1/account/balanceFlow',
					qs: { startTime: '1', endTime: '2', flowType: 51 },
				},
				{ baseUrl: sandbox().baseUrl },
			);
			const tampered = signed.url.replace('flowType=51', 'flowType=32');
			const response = await axios.get(`${sandbox().baseUrl}${tampered}`, {
				headers: signed.headers as Record<string, string>,
				validateStatus: () => true,
			});
			expect(response.status).toBe(400);
			expect(response.data.code).toBe('0002');
		});
	});
});

describe("n8n's credential Test, against the sandbox", () => {
	const sandbox = useSandbox({});
	const dataFor = (sb: Sandbox, key: DemoKey, extra: IDataObject = {}) => ({
		apiKey: key.apiKey,
		secretKey: key.secret,
		baseUrl: sb.baseUrl,
		recvWindow: 5000,
		...extra,
	});

	it('UAE rule: the credential Test is the lightest check every valid key passes: checkApiKey (weight 1), passed by a key that may not read the history', async () => {
		sandbox().setBehaviour({ historyRefusedKeys: [DEMO_KEYS.master.apiKey] });
		// The history is closed to this key (the old Test read it, and failed) ...
		const client = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		const now = sandbox().now();
		const historyRead = await client.history({ flowType: 51, startTime: now - 1000, endTime: now });
		expect([historyRead.status, historyRead.json.code]).toEqual([400, '-1005']);
		sandbox().ledger.requests.length = 0;
		// ... and the Test passes it, with one signed request of weight 1.
		expect(await runCredentialTest(dataFor(sandbox(), DEMO_KEYS.master))).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(
			sandbox().ledger.requests.map((request) => [request.method, request.path, request.weight]),
		).toEqual([['GET', '/api/v1/account/checkApiKey', 1]]);
		expect(sandbox().ledger.requests[0].query).toMatch(
			/^recvWindow=5000&timestamp=\d+&signature=[0-9a-f]{64}$/,
		);
		// Every demo key passes: a sub-account key and a read-only key too.
		expect((await runCredentialTest(dataFor(sandbox(), DEMO_KEYS.sub))).status).toBe('OK');
		expect((await runCredentialTest(dataFor(sandbox(), DEMO_KEYS.readOnly))).status).toBe('OK');
	});

	it("UAE rule: the credential Test still fails a wrong secret and an unknown API key, with the rule's message", async () => {
		const wrongSecret = await runCredentialTest(
			dataFor(sandbox(), DEMO_KEYS.master, { secretKey: 'not-the-secret' }),
		);
		expect(wrongSecret).toEqual({
			status: 'Error',
			message:
				'The service refused the signed request: check the API Key and the Secret Key or Private Key (they must belong together), that the key has not expired (keys unused for 90 days expire) and allows this server’s IP address (API Management page of the exchange), and that this server’s clock is right',
		});
		expect(sandbox().ledger.requests.map((request) => request.code)).toEqual(['0002']);
		const unknownKey = await runCredentialTest(
			dataFor(sandbox(), DEMO_KEYS.master, { apiKey: 'nobody' }),
		);
		expect(unknownKey.status).toBe('Error');
		expect(JSON.stringify([wrongSecret, unknownKey])).not.toContain(DEMO_KEYS.master.secret);
	});

	it('an old host answering a redirect or 410 Gone: the Test says the service moved to api-pro, and follows no redirect', async () => {
		const other = sandbox().otherHost;
		for (const status of [301, 302, 307, 308, 410]) {
			other.setReply({
				status,
				headers: { Location: `${sandbox().baseUrl}/api/v1/account/checkApiKey` },
				body: '',
			});
			const result = await runCredentialTest({
				...dataFor(sandbox(), DEMO_KEYS.master),
				baseUrl: other.url,
			});
			expect(result).toEqual({
				status: 'Error',
				message: expect.stringContaining(
					'Since 2026-06-16 the exchange serves its API at api-pro instead of api-glb: enter e.g. https://api-pro.hashkey.com',
				),
			});
		}
		expect(other.requests).toHaveLength(5);
		expect(sandbox().ledger.requests).toEqual([]);
	});

	it('UAE rule: receive window over 8000 in a saved credential: the Test fails naming the field and the fix, before any request', async () => {
		const result = await runCredentialTest(
			dataFor(sandbox(), DEMO_KEYS.master, { recvWindow: 60000 }),
		);
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			"The credential's Receive Window is over 8000 ms, the most the service accepts (it refuses larger values). Open the credential and set Receive Window to 8000 or less (5000 is the service's default), then save it.",
		);
		expect(sandbox().ledger.requests).toEqual([]);
	});
});
