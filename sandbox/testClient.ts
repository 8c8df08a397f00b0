/**
 * A tiny HTTP client for the sandbox's own tests. It signs independently, straight from spec 5.3:
 * signature = hex(HMAC-SHA256(secret, queryString + body)), no '&' between the two, the signature
 * pair itself not part of the signed text.
 */
import { createHmac } from 'node:crypto';
import * as http from 'node:http';

export interface RawResponse {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	json: any;
}

export interface RawRequest {
	method: string;
	/** Path plus raw query string, e.g. '/api/v1/time' or '/api/v1/x?a=1'. */
	url: string;
	body?: string;
	headers?: Record<string, string>;
}

/** Send one request on a fresh connection; rejects on socket errors (e.g. a dropped connection). */
export function rawRequest(baseUrl: string, r: RawRequest): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const u = new URL(baseUrl);
		const headers: Record<string, string> = { ...(r.headers ?? {}) };
		if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
		const req = http.request(
			{
				host: u.hostname,
				port: Number(u.port),
				method: r.method,
				path: r.url,
				headers,
				agent: false,
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', reject);
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let parsed: unknown;
					try {
						parsed = JSON.parse(text);
					} catch {
						parsed = undefined;
					}
					resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parsed });
				});
			},
		);
		req.on('error', reject);
		if (r.body !== undefined) req.write(r.body);
		req.end();
	});
}

export function hmacHex(secret: string, text: string): string {
	return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

export type Params = Record<string, string | number | undefined>;

/** application/x-www-form-urlencoded, insertion order, undefined values skipped. */
export function encodeParams(p: Params): string {
	return Object.entries(p)
		.filter(([, v]) => v !== undefined)
		.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
		.join('&');
}

export interface Credentials {
	apiKey: string;
	secret: string;
}

export interface SignedCall {
	method: 'GET' | 'POST' | 'PUT' | 'DELETE';
	path: string;
	/** Query parameters (timestamp is added here unless given in `body` or `timestamp: null`). */
	query?: Params;
	/** Form parameters (sent as application/x-www-form-urlencoded). */
	form?: Params;
	/** Raw JSON body text (sent as application/json). */
	json?: string;
	/** Where the signature goes; default 'query'. 'none' sends no signature. */
	signatureIn?: 'query' | 'body' | 'none';
	/** Override the timestamp; null = send none. Default: the clock given to the client. */
	timestamp?: number | null;
	/** Put timestamp (and recvWindow) in the form body instead of the query. */
	timestampIn?: 'query' | 'body';
	recvWindow?: number | string;
	/** Post-process the hex signature (e.g. upper-case it, or tamper it). */
	mangleSignature?: (sig: string) => string;
	/** Tamper with the final query string after signing. */
	mangleQuery?: (q: string) => string;
	contentType?: string;
	apiKey?: string | null;
}

export class TestClient {
	constructor(
		public readonly baseUrl: string,
		public readonly creds: Credentials,
		public readonly clock: () => number,
	) {}

	withCredentials(creds: Credentials): TestClient {
		return new TestClient(this.baseUrl, creds, this.clock);
	}

	/** Build the exact request a spec-following client would send. */
	build(c: SignedCall): RawRequest {
		const query: Params = { ...(c.query ?? {}) };
		const form: Params | undefined = c.form ? { ...c.form } : undefined;
		const ts = c.timestamp === undefined ? this.clock() : c.timestamp;
		const target = c.timestampIn === 'body' ? (form ?? {}) : query;
		if (ts !== null) target.timestamp = ts;
		if (c.recvWindow !== undefined) target.recvWindow = c.recvWindow;
		let q = encodeParams(query);
		let body: string | undefined;
		let contentType = c.contentType;
		if (c.json !== undefined) {
			body = c.json;
			contentType ??= 'application/json';
		} else if (form || c.timestampIn === 'body') {
			body = encodeParams(c.timestampIn === 'body' ? target : form!);
			contentType ??= 'application/x-www-form-urlencoded';
		}
		if ((c.signatureIn ?? 'query') !== 'none') {
			let sig = hmacHex(this.creds.secret, q + (body ?? ''));
			if (c.mangleSignature) sig = c.mangleSignature(sig);
			if ((c.signatureIn ?? 'query') === 'query')
				q = q === '' ? `signature=${sig}` : `${q}&signature=${sig}`;
			else
				body = body === undefined || body === '' ? `signature=${sig}` : `${body}&signature=${sig}`;
		}
		if (c.mangleQuery) q = c.mangleQuery(q);
		const headers: Record<string, string> = {};
		const apiKey = c.apiKey === undefined ? this.creds.apiKey : c.apiKey;
		if (apiKey !== null) headers['X-APIKEY'] = apiKey;
		if (contentType !== undefined) headers['Content-Type'] = contentType;
		return { method: c.method, url: q === '' ? c.path : `${c.path}?${q}`, body, headers };
	}

	call(c: SignedCall): Promise<RawResponse> {
		return rawRequest(this.baseUrl, this.build(c));
	}

	history(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'GET',
			path: '/api/v1/account/balanceFlow',
			query: params,
			...extra,
		});
	}

	transfer(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'POST',
			path: '/api/v1/account/assetTransfer',
			query: params,
			...extra,
		});
	}

	order(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'POST', path: '/api/v1/spot/new/order', form: params, ...extra });
	}

	batch(orders: unknown, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		const json = typeof orders === 'string' ? orders : JSON.stringify(orders);
		return this.call({ method: 'POST', path: '/api/v1/spot/batchOrders', json, ...extra });
	}

	/** GET /api/v1/spot/order (orderId or origClientOrderId). */
	queryOrder(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'GET', path: '/api/v1/spot/order', query: params, ...extra });
	}

	/** GET /api/v1/spot/openOrders. */
	openOrders(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'GET', path: '/api/v1/spot/openOrders', query: params, ...extra });
	}

	/** GET /api/v1/account/trades (fills). */
	trades(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'GET', path: '/api/v1/account/trades', query: params, ...extra });
	}

	/** GET /api/v1/spot/tradeOrders (past orders). */
	tradeOrders(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'GET', path: '/api/v1/spot/tradeOrders', query: params, ...extra });
	}

	/** DELETE /api/v1/spot/order (orderId or clientOrderId), parameters in the query string. */
	cancelOrder(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'DELETE', path: '/api/v1/spot/order', query: params, ...extra });
	}

	/** DELETE /api/v1/spot/openOrders (symbol, side). */
	cancelOpenOrders(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'DELETE',
			path: '/api/v1/spot/openOrders',
			query: params,
			...extra,
		});
	}

	/** DELETE /api/v1/spot/cancelAllOpenOrders (symbol, side, fromOrderId, limit). */
	cancelAllOpenOrders(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'DELETE',
			path: '/api/v1/spot/cancelAllOpenOrders',
			query: params,
			...extra,
		});
	}

	/** DELETE /api/v1/spot/cancelOrderByIds (ids comma-separated). */
	cancelOrdersByIds(ids: string[] | string, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		const value = Array.isArray(ids) ? ids.join(',') : ids;
		return this.call({
			method: 'DELETE',
			path: '/api/v1/spot/cancelOrderByIds',
			query: { ids: value },
			...extra,
		});
	}

	/** GET /api/v1/account (balances). */
	account(params: Params = {}, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'GET', path: '/api/v1/account', query: params, ...extra });
	}

	/**
	 * A market-data GET (exchange information, /quote/v1/*): the X-APIKEY header and the query
	 * only, no timestamp and no signature, as the UAE documentation says these endpoints take.
	 */
	marketData(
		path: string,
		params: Params = {},
		extra: Partial<SignedCall> = {},
	): Promise<RawResponse> {
		return this.call({
			method: 'GET',
			path,
			query: params,
			signatureIn: 'none',
			timestamp: null,
			...extra,
		});
	}

	/** POST /api/v1/userDataStream: a new listen key ({"listenKey": …}). */
	createListenKey(extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'POST', path: '/api/v1/userDataStream', ...extra });
	}

	/** PUT /api/v1/userDataStream?listenKey=K: keep it alive another 60 minutes. */
	keepAliveListenKey(listenKey: string, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'PUT',
			path: '/api/v1/userDataStream',
			query: { listenKey },
			...extra,
		});
	}

	/** DELETE /api/v1/userDataStream?listenKey=K. */
	deleteListenKey(listenKey: string, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({
			method: 'DELETE',
			path: '/api/v1/userDataStream',
			query: { listenKey },
			...extra,
		});
	}

	/** POST /api/v1/spot/orderTest, parameters as a form body like order(). */
	orderTest(params: Params, extra: Partial<SignedCall> = {}): Promise<RawResponse> {
		return this.call({ method: 'POST', path: '/api/v1/spot/orderTest', form: params, ...extra });
	}
}
