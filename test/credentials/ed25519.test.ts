import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';

import axios from 'axios';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeType,
	IRequestOptions,
} from 'n8n-workflow';

import { ed25519PrivateKey, signEd25519 } from '../../credentials/ed25519';
import { encodeRfc3986, sign, signQuery, signQueryWith } from '../../credentials/signing';
import {
	checkCredentialData,
	TradingServiceApi,
} from '../../credentials/TradingServiceApi.credentials';
import { DEMO_KEYS } from '../../sandbox';
import { DEMO_ED25519_PRIVATE_KEY } from '../../sandbox/constants';
import { runTradingService } from '../../tools/harness/node';
import { runWorkflow } from '../../tools/harness/workflow';
import { useSandbox } from '../support/sandbox';
import { runCredentialTest } from './support';

// A fixed pair made with `openssl genpkey -algorithm ed25519`; the expected signatures were made
// outside this code base: printf '%s' "$text" | openssl pkeyutl -sign -inkey vec.pem -rawin | base64
const VECTOR_PRIVATE = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEILFq/8eyczHZIqRWQn8Dh4/I6LuspPNQCa+0yqSD2fZl
-----END PRIVATE KEY-----
`;
const VECTOR_PUBLIC = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAs7W7ywU/Xy6lSg+B2X+NHkbITnWgooW8ItVZ4kulHyI=
-----END PUBLIC KEY-----
`;
const QUERY =
	'symbol=ETHUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1538323200000';
const QUERY_SIGNATURE =
	'5Gv88h5R6//5e5MrH4ekQz51jfCWo2uM6oanN1xEEgoY14YYUBfK0fb/9l+NFxyqMORW3/6vv2mTbDyqEHbVAA==';
const BODY = '[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.01","price":"50000"}]';
const BODY_SIGNATURE =
	'r7imZ6n4NuAgVYZ25XynvxRPxfIvseD67t1igELar94euvbASjxqRxeKvm1ONfeBEIgGQbTmFQRjMNC7beRUCg==';

const vectorKey = createPrivateKey(VECTOR_PRIVATE);
const credential = new TradingServiceApi();
/** Every line of a key, for "never echoed" checks (the PEM armour lines excepted). */
const keyLines = (pem: string) =>
	pem.split('\n').filter((line) => line !== '' && !/^-----/.test(line));

describe('Ed25519 signing: fixed vectors', () => {
	it('signs a query exactly as openssl does, and Node verifies it with the public key', () => {
		expect(signEd25519(QUERY, vectorKey)).toBe(QUERY_SIGNATURE);
		const signature = Buffer.from(QUERY_SIGNATURE, 'base64');
		expect(verify(null, Buffer.from(QUERY), createPublicKey(VECTOR_PUBLIC), signature)).toBe(true);
		expect(verify(null, Buffer.from(`${QUERY}0`), createPublicKey(VECTOR_PUBLIC), signature)).toBe(
			false,
		);
	});

	it('signs query + body with no & between them, as HMAC does; the Base64 percent-encoded in the query', () => {
		const signed = signQueryWith(
			'',
			BODY,
			(text) => signEd25519(text, vectorKey),
			1538323200000,
			5000,
		);
		expect(signed.signature).toBe(BODY_SIGNATURE);
		expect(signed.query).toBe(
			`recvWindow=5000&timestamp=1538323200000&signature=${encodeRfc3986(BODY_SIGNATURE)}`,
		);
		const withSlashAndPlus = signQueryWith(QUERY, '', () => QUERY_SIGNATURE, 1, 5000).query;
		expect(withSlashAndPlus).toContain(
			'signature=5Gv88h5R6%2F%2F5e5MrH4ekQz51jfCWo2uM6oanN1xEEgoY',
		);
		expect(withSlashAndPlus).toMatch(/%3D%3D$/);
	});

	it('leaves HMAC byte for byte as before: hex, unchanged by the percent-encoding', () => {
		const secret = DEMO_KEYS.master.secret;
		const signed = signQuery('a=1', '', secret, 1538323200000, 5000);
		const text = 'a=1&recvWindow=5000&timestamp=1538323200000';
		expect(signed.query).toBe(`${text}&signature=${sign(text, secret)}`);
	});
});

describe('the Private Key field: refused before any request, naming the field, never echoing the key', () => {
	const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
	const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
	const encrypted = generateKeyPairSync('ed25519')
		.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' })
		.toString();
	const damaged = VECTOR_PRIVATE.replace('MC4CAQAw', 'MC4CAQBw');
	const cases: Array<[string, string, RegExp]> = [
		['empty', '', /is empty/],
		['not PEM', keyLines(VECTOR_PRIVATE)[0], /is not a key in PEM format/],
		['a public key', VECTOR_PUBLIC, /holds a public key/],
		['an RSA key', rsaPem, /is an RSA key, not an Ed25519 key/],
		['an encrypted key', encrypted, /is encrypted with a passphrase/],
		['a damaged key', damaged, /is not a readable private key/],
	];

	it.each(cases)('%s', (_name, privateKey, problem) => {
		const check = checkCredentialData({
			baseUrl: 'https://api-pro.example.com',
			apiKey: 'key',
			signatureMethod: 'ed25519',
			privateKey,
		});
		expect(check.ok).toBe(false);
		if (check.ok) return;
		expect(check.problem.field).toBe('Private Key');
		expect(check.problem.problem).toMatch(problem);
		const said = JSON.stringify(check.problem);
		for (const line of keyLines(privateKey)) expect(said).not.toContain(line.slice(0, 16));
	});

	it('takes a key pasted on one line (spaces or a literal \\n between its lines)', () => {
		for (const pasted of [
			VECTOR_PRIVATE.replace(/\n/g, ' '),
			VECTOR_PRIVATE.replace(/\n/g, '\\n'),
		]) {
			const key = ed25519PrivateKey(pasted);
			expect('problem' in key).toBe(false);
			expect(signEd25519(QUERY, key as typeof vectorKey)).toBe(QUERY_SIGNATURE);
		}
	});

	it('needs no Secret Key with Ed25519; HMAC (the default, as saved credentials have it) still needs one', () => {
		const base = { baseUrl: 'https://api-pro.example.com', apiKey: 'key' };
		expect(
			checkCredentialData({ ...base, signatureMethod: 'ed25519', privateKey: VECTOR_PRIVATE }).ok,
		).toBe(true);
		const hmac = checkCredentialData({ ...base, privateKey: VECTOR_PRIVATE });
		expect(hmac.ok ? undefined : hmac.problem.field).toBe('Secret Key');
	});
});

describe('an Ed25519 credential against the sandbox', () => {
	const sandbox = useSandbox({});
	const ed25519 = (extra: IDataObject = {}) => ({
		apiKey: DEMO_KEYS.ed25519.apiKey,
		baseUrl: sandbox().baseUrl,
		recvWindow: 5000,
		signatureMethod: 'ed25519',
		privateKey: DEMO_ED25519_PRIVATE_KEY,
		...extra,
	});

	async function send(
		options: IHttpRequestOptions,
		data: ICredentialDataDecryptedObject = ed25519(),
	) {
		const signed = (await credential.authenticate!(data, options)) as IHttpRequestOptions;
		const response = await axios.request({
			method: signed.method,
			baseURL: signed.baseURL,
			url: signed.url,
			data: signed.body,
			headers: signed.headers as Record<string, string>,
			validateStatus: () => true,
		});
		return { status: response.status, body: response.data as IDataObject, url: signed.url ?? '' };
	}

	it('is accepted for a read, a JSON batch and a form order; a Base64 signature in the query', async () => {
		const read = await send({ method: 'GET', url: '/api/v1/account/checkApiKey' });
		expect(read.status).toBe(200);
		expect(read.url).toMatch(/&signature=[A-Za-z0-9%]{88,}$/);
		const order = {
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			quantity: '0.001',
			price: '100',
		};
		const batch = await send({ method: 'POST', url: '/api/v1/spot/batchOrders', body: [order] });
		expect([batch.status, batch.body.code]).toEqual([200, 0]);
		const form = await send({
			method: 'POST',
			url: '/api/v1/spot/new/order',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: order,
		});
		expect(form.status).toBe(200);
	});

	it('a wrong private key, or an HMAC signature for the Ed25519 key, is refused 0002', async () => {
		const wrong = await send(
			{ method: 'GET', url: '/api/v1/account/checkApiKey' },
			ed25519({ privateKey: VECTOR_PRIVATE }),
		);
		expect([wrong.status, wrong.body.code]).toEqual([400, '0002']);
		const hmac = await send(
			{ method: 'GET', url: '/api/v1/account/checkApiKey' },
			ed25519({ signatureMethod: 'hmac', secretKey: 'a-secret-for-an-hmac-signature' }),
		);
		expect([hmac.status, hmac.body.code]).toEqual([400, '0002']);
	});

	it("passes n8n's credential Test; a wrong key fails it; a public key fails it before any request, never echoed", async () => {
		expect(await runCredentialTest(ed25519())).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(sandbox().ledger.requests[0].query).toMatch(/&signature=[A-Za-z0-9%]{88,}$/);
		expect((await runCredentialTest(ed25519({ privateKey: VECTOR_PRIVATE }))).status).toBe('Error');
		const before = sandbox().ledger.requests.length;
		const pasted = await runCredentialTest(ed25519({ privateKey: VECTOR_PUBLIC }));
		expect(pasted.status).toBe('Error');
		expect(pasted.message).toMatch(/^The credential's Private Key holds a public key/);
		for (const line of keyLines(VECTOR_PUBLIC)) expect(pasted.message).not.toContain(line);
		expect(sandbox().ledger.requests).toHaveLength(before);
	});

	it('the node places an order with it; a wrong PEM is refused before any request, the key in no error or item', async () => {
		const credentials = { signatureMethod: 'ed25519', privateKey: DEMO_ED25519_PRIVATE_KEY };
		const parameters = {
			resource: 'order',
			operation: 'create',
			symbol: 'BTCUSDT',
			side: 'BUY',
			type: 'LIMIT',
			price: '100',
			quantity: '0.001',
		};
		const run = await runTradingService(sandbox(), {
			parameters,
			key: DEMO_KEYS.ed25519,
			credentials,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ status: 'NEW', symbol: 'BTCUSDT' });
		expect(sandbox().ledger.orders).toHaveLength(1);
		const damaged = DEMO_ED25519_PRIVATE_KEY.replace('MC4CAQAw', 'MC4CAQBw');
		const before = sandbox().ledger.requests.length;
		const refused = await runTradingService(sandbox(), {
			parameters,
			key: DEMO_KEYS.ed25519,
			credentials: { ...credentials, privateKey: damaged },
		});
		expect(refused.error?.message).toMatch(/Private Key is not a readable private key/);
		expect(sandbox().ledger.requests).toHaveLength(before);
		for (const run of [
			refused,
			await runTradingService(sandbox(), { parameters, key: DEMO_KEYS.ed25519, credentials }),
		])
			for (const line of [...keyLines(DEMO_ED25519_PRIVATE_KEY), ...keyLines(damaged)])
				expect(run.serialised).not.toContain(line);
	});
});

/**
 * The stock HTTP Request node with the credential as a "Predefined Credential Type" hands n8n-core's
 * requestWithAuthentication the legacy request shape (`uri`, `qs`, `body` or `form`, `json: true`).
 * A stand-in node sends exactly such options through that real helper (n8n's legacy-request adapter,
 * over real HTTP); the credential signs each request twice, as n8n may (signing signed options again).
 */
describe("the HTTP Request node's legacy request shapes, signed twice with the Ed25519 credential", () => {
	const sandbox = useSandbox({});
	const HTTP_NODE = 'HTTP Request';
	const HTTP_TYPE = 'test.httpRequestStandIn';

	class SignedTwice extends TradingServiceApi {
		readonly passes: IHttpRequestOptions[] = [];

		async authenticate(
			data: ICredentialDataDecryptedObject,
			options: IHttpRequestOptions,
		): Promise<IHttpRequestOptions> {
			const first = await super.authenticate(data, options);
			this.passes.push(structuredClone(first));
			// A later millisecond, so the second pass's timestamp (and signature) differ from the first's.
			const started = Date.now();
			while (Date.now() === started) await new Promise((resolve) => setImmediate(resolve));
			const second = await super.authenticate(data, first);
			this.passes.push(structuredClone(second));
			return second;
		}
	}

	function standIn(options: IRequestOptions): INodeType {
		return {
			description: {
				displayName: 'HTTP Request (stand-in)',
				name: 'httpRequestStandIn',
				group: ['output'],
				version: 1,
				description: '',
				defaults: { name: HTTP_NODE },
				inputs: ['main'],
				outputs: ['main'],
				credentials: [{ name: credential.name, required: true }],
				properties: [],
			},
			async execute(this: IExecuteFunctions) {
				const response = (await this.helpers.requestWithAuthentication.call(
					this,
					credential.name,
					structuredClone(options),
					undefined,
					0,
				)) as { statusCode: number; body: IDataObject };
				return [[{ json: { statusCode: response.statusCode, body: response.body } }]];
			},
		};
	}

	async function send(options: IRequestOptions) {
		const signer = new SignedTwice();
		const result = await runWorkflow({
			nodes: [
				{
					id: 'http',
					name: HTTP_NODE,
					type: HTTP_TYPE,
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
					credentials: { [credential.name]: { id: '1', name: 'Ed25519' } },
				},
			],
			nodeTypes: { [HTTP_TYPE]: standIn(options) },
			credentialTypes: { [credential.name]: signer },
			credentials: {
				[credential.name]: {
					apiKey: DEMO_KEYS.ed25519.apiKey,
					baseUrl: sandbox().baseUrl,
					recvWindow: 5000,
					signatureMethod: 'ed25519',
					privateKey: DEMO_ED25519_PRIVATE_KEY,
				},
			},
		});
		const error = result.error(HTTP_NODE);
		const requests = sandbox().ledger.requests;
		return {
			error: error?.message,
			json: result.output(HTTP_NODE)[0]?.json,
			passes: signer.passes,
			sent: requests[requests.length - 1],
			serialised: JSON.stringify(result.run),
		};
	}

	/** The query as sent: once each of recvWindow, timestamp and signature, the signature last. */
	function expectSignedOnce(query: string) {
		for (const name of ['recvWindow', 'timestamp', 'signature'])
			expect(query.split('&').filter((pair) => pair.startsWith(`${name}=`))).toHaveLength(1);
		expect(query).toMatch(/&timestamp=\d+&signature=[A-Za-z0-9%]{88,}$/);
	}

	/** The first pass's timestamp and signature were replaced by the second's, not added to. */
	function expectSecondPassReplacedFirst(passes: IHttpRequestOptions[]) {
		expect(passes).toHaveLength(2);
		const [first, second] = passes.map((pass) => (pass as { uri?: string }).uri ?? '');
		const timestamp = (uri: string) => /[?&]timestamp=(\d+)/.exec(uri)?.[1];
		expect(Number(timestamp(second))).toBeGreaterThan(Number(timestamp(first)));
		expect(second.replace(/timestamp=.*$/, '')).toBe(first.replace(/timestamp=.*$/, ''));
	}

	const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.001', price: '100' };

	it('a GET with uri + qs + json: true (and a query already in the uri) is accepted', async () => {
		for (const [path, qs] of [
			['/api/v1/account/trades', { symbol: 'BTCUSDT', limit: 5 }],
			['/api/v1/spot/tradeOrders?symbol=BTCUSDT', { limit: 5 }],
		] as const) {
			const run = await send({
				headers: {},
				method: 'GET',
				uri: `${sandbox().baseUrl}${path}`,
				qs,
				json: true,
				gzip: true,
				rejectUnauthorized: true,
				followRedirect: true,
				resolveWithFullResponse: true,
			});
			expect(run.error).toBeUndefined();
			expect(run.json?.statusCode).toBe(200);
			expect(Array.isArray(run.json?.body)).toBe(true);
			expect(run.sent.status).toBe(200);
			expect(run.sent.query).toMatch(/^symbol=BTCUSDT&limit=5&recvWindow=5000&timestamp=/);
			expectSignedOnce(run.sent.query);
			expectSecondPassReplacedFirst(run.passes);
		}
	});

	it('a POST with uri + a JSON body whose values hold + / = and spaces is accepted, the body sent as signed', async () => {
		const clientOrderId = 'a+b/c=d e f';
		const run = await send({
			headers: {},
			method: 'POST',
			uri: `${sandbox().baseUrl}/api/v1/spot/batchOrders`,
			body: [{ ...order, newClientOrderId: clientOrderId }],
			json: true,
			resolveWithFullResponse: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.json?.statusCode).toBe(200);
		expect(run.json?.body).toMatchObject({ code: 0 });
		expect(run.sent.body).toBe(JSON.stringify([{ ...order, newClientOrderId: clientOrderId }]));
		expectSignedOnce(run.sent.query);
		expectSecondPassReplacedFirst(run.passes);
		expect(sandbox().ledger.orders.map((placed) => placed.clientOrderId)).toEqual([clientOrderId]);
	});

	it.each([
		['with its Content-Type header', { 'content-type': 'application/x-www-form-urlencoded' }],
		['without a Content-Type header', {}],
	])(
		"a POST with uri + form whose values hold ' ( ) and a space is accepted (%s)",
		async (_name, headers) => {
			const clientOrderId = "x y'(z)";
			const run = await send({
				headers,
				method: 'POST',
				uri: `${sandbox().baseUrl}/api/v1/spot/new/order`,
				form: { ...order, newClientOrderId: clientOrderId },
				json: true,
				resolveWithFullResponse: true,
			});
			expect(run.error).toBeUndefined();
			expect(run.json?.statusCode).toBe(200);
			expect(run.json?.body).toMatchObject({ clientOrderId, status: 'NEW' });
			// RFC 3986: ' ( ) percent-encoded, a space as %20, exactly the bytes signed.
			expect(run.sent.body).toContain('newClientOrderId=x%20y%27%28z%29');
			expectSignedOnce(run.sent.query);
			expectSecondPassReplacedFirst(run.passes);
			expect(sandbox().ledger.orders.map((placed) => placed.clientOrderId)).toEqual([
				clientOrderId,
			]);
			for (const line of keyLines(DEMO_ED25519_PRIVATE_KEY))
				expect(run.serialised).not.toContain(line);
		},
	);
});
