/**
 * HTTP layer of the sandbox: routing, authentication (spec section 5), rate limits, fault injection.
 * The signature check is written straight from spec 5.3 and shares no code with nodes/ or credentials/.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { CODES, intCode } from './codes';
import {
	ACCOUNT_TYPES,
	ACCOUNT_TYPE_VALUES,
	DEFAULT_HISTORY_LIMIT,
	DEFAULT_RATE_LIMIT,
	DEFAULT_RECV_WINDOW,
	DEMO_KEYS,
	DEMO_USER_ID,
	FLOW_TYPES,
	MAX_BATCH_ORDERS,
	MAX_HISTORY_LIMIT,
	MAX_RECV_WINDOW,
	SYMBOLS,
	accountsOf,
	tradingAccountOf,
} from './constants';
import { seedDemoHistory } from './demo';
import { Engine } from './engine';
import { ApiError, OrderFail, apiError, fieldError } from './errors';
import {
	FAULT_KINDS,
	MALFORMED_KINDS,
	REDIRECT_KINDS,
	REDIRECT_LOOP_PATH,
	SEND_FAULTS,
	faultAnswer,
	phaseOf,
	type ActiveFault,
} from './faults';
import { RateLimiter, decodeComponent, mediaType, splitPairs, toParamMap } from './http';
import { JsonNumber, parseJson, stringifyWithRawIds, type JsonValue } from './json';
import {
	DEFAULT_CANCEL_ALL_LIMIT,
	DEFAULT_OPEN_ORDERS_LIMIT,
	MAX_CANCEL_ALL_LIMIT,
	MAX_CANCEL_IDS,
	MAX_OPEN_ORDERS_LIMIT,
	OrderBook,
	type OrderInput,
	type OrderListFilter,
} from './orders';
import { OtherHostServer } from './otherHost';
import { cmpId } from './store';
import { mulberry32 } from './prng';
import type {
	AddRecordInput,
	DemoKey,
	FaultKind,
	FaultPlan,
	FaultRule,
	HistoryRecord,
	Ledger,
	LedgerRequest,
	OrderSide,
	OrderView,
	Permission,
	RateLimitConfig,
	Sandbox,
	SandboxBehaviour,
	SandboxOptions,
	SeedOpenOrderInput,
	SeedRecordsOptions,
} from './types';

const MAX_BODY_BYTES = 1024 * 1024;

type Method = 'GET' | 'POST' | 'DELETE';

interface Resp {
	status: number;
	headers: Record<string, string>;
	/** A JSON value, serialized when sent. */
	value?: unknown;
	/** A raw body (when `value` is absent). */
	raw?: string | Buffer;
	code?: string;
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): Resp {
	return { status, value, headers: { 'Content-Type': 'application/json', ...headers } };
}

function errorResp(
	status: number,
	code: string,
	msg: string,
	headers: Record<string, string> = {},
): Resp {
	return { ...json(status, { code, msg }, headers), code };
}

interface Ctx {
	req: http.IncomingMessage;
	method: string;
	path: string;
	query: string;
	body: string;
	serverTime: number;
	fault: ActiveFault | null;
}

interface Authed {
	key: DemoKey;
	/** Query-string parameters (signature removed). */
	queryParams: Map<string, string>;
	/** Query-string plus form-body parameters (signature removed). */
	allParams: Map<string, string>;
}

interface Route {
	weight: number;
	signed: boolean;
	permission?: Permission;
	handler: (ctx: Ctx, auth: Authed | null) => Resp;
}

const DEFAULT_BEHAVIOUR: Required<SandboxBehaviour> = {
	signatureErrorCode: '0002',
	batchSuccessCode: 0,
	batchEntryCodes: 'integer',
	cancelOpenOrdersAnswer: 'documented',
	cancelByIdsAllCancelled: 'emptyArray',
};

const KEYS_BY_API_KEY = new Map<string, DemoKey>(
	Object.values(DEMO_KEYS).map((k) => [k.apiKey, k]),
);

/** The spot trading accounts a key may read orders of: master sees its sub account's orders too. */
function orderAccountsOf(key: DemoKey): string[] {
	return key.kind === 'master'
		? accountsOf(key).filter((a) => ACCOUNT_TYPES[a] === 1)
		: [tradingAccountOf(key)];
}

export class SandboxServer implements Sandbox {
	baseUrl = '';
	readonly ledger: Ledger = { requests: [], transfers: [], orders: [], cancels: [] };
	private readonly engine: Engine;
	private readonly baseClock: () => number;
	private clockOffsetMs = 0;
	private readonly limiter: RateLimiter;
	private latencyMs = 0;
	private rules: FaultRule[] = [];
	private random: (NonNullable<FaultPlan['random']> & { rnd: () => number }) | null = null;
	private readonly server: http.Server;
	private readonly sockets = new Set<Socket>();
	private readonly routes: Record<string, Partial<Record<Method, Route>>>;
	private behaviour: Required<SandboxBehaviour>;
	readonly otherHost = new OtherHostServer();
	/** Timers of answers still being drip-fed; cleared by stop(). */
	private readonly drips = new Set<NodeJS.Timeout>();

	constructor(private readonly options: SandboxOptions = {}) {
		this.baseClock = options.now ?? Date.now;
		this.limiter = new RateLimiter(
			options.rateLimit === undefined ? { ...DEFAULT_RATE_LIMIT } : options.rateLimit,
		);
		this.engine = new Engine(() => this.now(), this.ledger);
		this.behaviour = { ...DEFAULT_BEHAVIOUR, ...(options.behaviour ?? {}) };
		const read = (weight: number, handler: (ctx: Ctx, auth: Authed) => Resp): Route => ({
			weight,
			signed: true,
			permission: 'read',
			handler: (ctx, auth) => handler(ctx, auth!),
		});
		const trade = (weight: number, handler: (ctx: Ctx, auth: Authed) => Resp): Route => ({
			weight,
			signed: true,
			permission: 'trade',
			handler: (ctx, auth) => handler(ctx, auth!),
		});
		// Weights: spec section 8 where it gives one, else CCXT's hashkey.ts.
		this.routes = {
			'/api/v1/time': {
				GET: { weight: 1, signed: false, handler: () => json(200, { serverTime: this.now() }) },
			},
			'/api/v1/account/balanceFlow': { GET: read(5, (ctx, auth) => this.history(ctx, auth)) },
			'/api/v1/account/assetTransfer': { POST: trade(1, (_ctx, auth) => this.transfer(auth)) },
			'/api/v1/spot/new/order': { POST: trade(1, (ctx, auth) => this.singleOrder(ctx, auth)) },
			'/api/v1/spot/batchOrders': { POST: trade(1, (ctx, auth) => this.batchOrders(ctx, auth)) },
			'/api/v1/spot/order': {
				GET: read(1, (_ctx, auth) => this.queryOrder(auth)),
				DELETE: trade(1, (_ctx, auth) => this.cancelOrder(auth)),
			},
			'/api/v1/spot/orderTest': { POST: trade(1, (ctx, auth) => this.testOrder(ctx, auth)) },
			'/api/v1/spot/openOrders': {
				GET: read(1, (_ctx, auth) => this.openOrders(auth)),
				DELETE: trade(5, (_ctx, auth) => this.cancelOpenOrders(auth)),
			},
			'/api/v1/spot/tradeOrders': { GET: read(5, (_ctx, auth) => this.pastOrders(auth)) },
			'/api/v1/spot/cancelOrderByIds': {
				DELETE: trade(5, (_ctx, auth) => this.cancelOrdersByIds(auth)),
			},
			'/api/v1/account': { GET: read(1, (_ctx, auth) => this.account(auth)) },
		};
		this.server = http.createServer((req, res) => this.onRequest(req, res));
		this.server.on('connection', (s: Socket) => {
			this.sockets.add(s);
			s.on('close', () => this.sockets.delete(s));
		});
		if (options.seedDemo) this.seedDemo();
	}

	// ---------------------------------------------------------------- lifecycle

	async listen(): Promise<void> {
		const host = this.options.host ?? '127.0.0.1';
		await this.otherHost.listen(host);
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, host, () => {
				this.server.off('error', reject);
				const addr = this.server.address() as AddressInfo;
				const h = host.includes(':') ? `[${host}]` : host;
				this.baseUrl = `http://${h}:${addr.port}`;
				resolve();
			});
		});
	}

	async stop(): Promise<void> {
		for (const t of this.drips) clearTimeout(t);
		this.drips.clear();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			for (const s of this.sockets) s.destroy();
			this.sockets.clear();
		});
		await this.otherHost.stop();
	}

	reset(): void {
		this.engine.resetState();
		this.ledger.requests.length = 0;
		this.ledger.transfers.length = 0;
		this.ledger.orders.length = 0;
		this.ledger.cancels.length = 0;
		this.otherHost.clear();
		this.clearFaults();
		this.limiter.config =
			this.options.rateLimit === undefined ? { ...DEFAULT_RATE_LIMIT } : this.options.rateLimit;
		this.limiter.clear();
		this.behaviour = { ...DEFAULT_BEHAVIOUR, ...(this.options.behaviour ?? {}) };
		if (this.options.seedDemo) this.seedDemo();
	}

	now(): number {
		return this.baseClock() + this.clockOffsetMs;
	}

	// ---------------------------------------------------------------- state helpers

	setBalance(accountId: string, coin: string, amount: string): void {
		this.engine.setBalance(accountId, coin, amount);
	}

	getBalance(accountId: string, coin: string): string {
		return this.engine.getBalance(accountId, coin);
	}

	addRecords(records: AddRecordInput[]): HistoryRecord[] {
		return this.engine.addRecords(records);
	}

	seedRecords(opts: SeedRecordsOptions): HistoryRecord[] {
		return this.engine.seedRecords(opts);
	}

	seedDemo(): void {
		seedDemoHistory(this);
	}

	getOrder(orderId: string): OrderView | undefined {
		return this.engine.orders.getView(orderId);
	}

	fillOrder(orderId: string, quantity?: string): OrderView {
		return this.engine.orders.fill(orderId, quantity);
	}

	advanceOrders(symbol?: string): OrderView[] {
		return this.engine.orders.advance(symbol);
	}

	seedOpenOrder(input: SeedOpenOrderInput): OrderView {
		const {
			key = DEMO_KEYS.master,
			symbol,
			side,
			type = 'LIMIT',
			price,
			quantity,
			clientOrderId,
			time,
		} = input;
		const order: OrderInput = { symbol, side, type, price, quantity };
		if (clientOrderId !== undefined) order.newClientOrderId = clientOrderId;
		return this.engine.seedOpenOrder(key, order, time);
	}

	getBalanceDetail(
		accountId: string,
		coin: string,
	): { free: string; locked: string; total: string } {
		return this.engine.getBalanceDetail(accountId, coin);
	}

	setFaults(plan: FaultPlan): void {
		for (const r of plan.rules ?? []) {
			if (!FAULT_KINDS.includes(r.kind)) throw new Error(`unknown fault kind ${String(r.kind)}`);
		}
		this.latencyMs = Math.max(0, plan.latencyMs ?? 0);
		this.clockOffsetMs = plan.clockOffsetMs ?? 0;
		this.rules = (plan.rules ?? []).map((r) => ({ ...r }));
		this.random = plan.random ? { ...plan.random, rnd: mulberry32(plan.random.seed) } : null;
	}

	clearFaults(): void {
		this.setFaults({});
	}

	setRateLimit(config: RateLimitConfig | false): void {
		this.limiter.config = config;
		this.limiter.clear();
	}

	setBehaviour(behaviour: SandboxBehaviour): void {
		this.behaviour = { ...this.behaviour, ...behaviour };
	}

	// ---------------------------------------------------------------- request pipeline

	private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (c: Buffer) => {
			size += c.length;
			if (size <= MAX_BODY_BYTES) chunks.push(c);
		});
		req.on('end', () => {
			this.handle(req, res, Buffer.concat(chunks).toString('utf8'), size > MAX_BODY_BYTES).catch(
				() => req.socket.destroy(),
			);
		});
		req.on('error', () => undefined);
	}

	private pickFault(method: string, path: string): ActiveFault | null {
		for (const r of this.rules) {
			if (r.times <= 0) continue;
			if (r.path !== undefined && r.path !== path) continue;
			if (r.method !== undefined && r.method.toUpperCase() !== method) continue;
			r.times--;
			return { kind: r.kind, rule: r };
		}
		const rp = this.random;
		if (rp && (!rp.paths || rp.paths.includes(path))) {
			const x = rp.rnd();
			let acc = 0;
			const pick = (p: number | undefined): boolean => {
				acc += p ?? 0;
				return x < acc;
			};
			const of = (kind: FaultKind): ActiveFault => ({ kind, rule: { kind, times: 1 } });
			const oneOf = (kinds: FaultKind[]): ActiveFault =>
				of(kinds[Math.floor(rp.rnd() * kinds.length)]);
			if (pick(rp.http5xx)) return oneOf(['http500', 'http502', 'http503']);
			if (pick(rp.dropBefore)) return of('dropBefore');
			if (pick(rp.dropAfter)) return of('dropAfter');
			if (pick(rp.rateLimit)) return of('rateLimit');
			if (pick(rp.http5xxAfter)) return oneOf(['http500After', 'http502After', 'http503After']);
			if (pick(rp.unknownBefore)) return of('unknownBefore');
			if (pick(rp.unknownAfter)) return of('unknownAfter');
			if (pick(rp.batchReorder)) return of('batchReorder');
			if (pick(rp.redirect)) {
				const f = oneOf(REDIRECT_KINDS);
				f.rule.redirectStatus = rp.rnd() < 0.5 ? 303 : 307;
				return f;
			}
			if (pick(rp.malformed)) return oneOf(MALFORMED_KINDS);
			if (pick(rp.dripFeed))
				return {
					kind: 'dripFeed',
					rule: { kind: 'dripFeed', times: 1, dripIntervalMs: rp.dripIntervalMs },
				};
			if (pick(rp.ipBan)) return of('ipBan');
			if (pick(rp.transferSuccessFalse)) return of('transferSuccessFalse');
			if (pick(rp.numericIds)) return of('numericIds');
			if (pick(rp.historyOversize)) return of('historyOversize');
			if (pick(rp.historyOldestFirst)) return of('historyOldestFirst');
		}
		return null;
	}

	private async handle(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		body: string,
		tooBig: boolean,
	): Promise<void> {
		const rawUrl = req.url ?? '/';
		const qi = rawUrl.indexOf('?');
		const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
		const query = qi < 0 ? '' : rawUrl.slice(qi + 1);
		const method = (req.method ?? 'GET').toUpperCase();
		const serverTime = this.now();
		const hdr = req.headers['x-apikey'];
		const weight = this.routes[path]?.[method as Method]?.weight ?? 0;
		const entry: LedgerRequest = { method, path, query, body, status: 0, weight, at: serverTime };
		if (typeof hdr === 'string') entry.apiKey = hdr;
		this.ledger.requests.push(entry);

		if (path === REDIRECT_LOOP_PATH) {
			// every hop of a redirect loop redirects again; no rule is used up by the hops
			const q = new URLSearchParams(query);
			const status = [301, 302, 303, 307, 308].includes(Number(q.get('status')))
				? Number(q.get('status'))
				: 307;
			const hop = Number(q.get('hop')) || 1;
			entry.fault = 'redirectLoop';
			entry.status = status;
			await this.delay();
			if (res.destroyed) return;
			res.writeHead(status, {
				Location: `${this.baseUrl}${REDIRECT_LOOP_PATH}?status=${status}&hop=${hop + 1}`,
				'Content-Length': '0',
			});
			res.end();
			return;
		}

		const fault = this.pickFault(method, path);
		if (fault) entry.fault = fault.kind;
		const phase = fault ? phaseOf(fault.kind) : null;
		if (phase === 'dropBefore') {
			await this.delay();
			req.socket.destroy();
			return;
		}

		let resp: Resp;
		if (fault && phase === 'before') {
			resp = this.fromFault(fault, method, path, rawUrl);
		} else if (tooBig) {
			resp = errorResp(
				413,
				CODES.invalidField.code,
				"Required field 'body' missing or invalid (request body too large)",
			);
		} else {
			resp = this.process({ req, method, path, query, body, serverTime, fault });
			if (fault && phase === 'after') {
				entry.appliedStatus = resp.status;
				if (!SEND_FAULTS.has(fault.kind)) resp = this.fromFault(fault, method, path, rawUrl);
			}
		}
		entry.status = resp.status;
		if (resp.code !== undefined) entry.code = resp.code;

		await this.delay();
		if (fault?.kind === 'dropAfter') {
			req.socket.destroy();
			return;
		}
		if (res.destroyed || res.writableEnded) return;
		const text =
			resp.value === undefined
				? (resp.raw ?? '')
				: fault?.kind === 'numericIds'
					? stringifyWithRawIds(resp.value)
					: JSON.stringify(resp.value);
		const payload = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
		const headers = { ...resp.headers, 'Content-Length': String(payload.length) };
		switch (fault?.kind) {
			case 'dripFeed':
				res.writeHead(resp.status, headers);
				this.drip(res, payload, Math.max(1, fault.rule.dripIntervalMs ?? 50));
				return;
			case 'answerTruncated':
				// Content-Length promises the whole answer; half of it arrives, then the connection closes
				res.writeHead(resp.status, headers);
				res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => req.socket.destroy());
				return;
			case 'answerBadGzip':
				res.writeHead(resp.status, { ...headers, 'Content-Encoding': 'gzip' });
				res.end(payload);
				return;
			default:
				res.writeHead(resp.status, headers);
				res.end(payload);
		}
	}

	/** Send `payload` one byte every `intervalMs`, stopping if the client goes away. */
	private drip(res: http.ServerResponse, payload: Buffer, intervalMs: number): void {
		let i = 0;
		const next = () => {
			if (res.destroyed) return;
			if (i >= payload.length) {
				res.end();
				return;
			}
			res.write(payload.subarray(i, i + 1));
			i++;
			const t = setTimeout(() => {
				this.drips.delete(t);
				next();
			}, intervalMs);
			this.drips.add(t);
		};
		next();
	}

	private fromFault(fault: ActiveFault, method: string, path: string, rawUrl: string): Resp {
		const a = faultAnswer(fault, method, path, {
			self: this.baseUrl,
			other: this.otherHost.url,
			url: rawUrl,
		});
		if (a.value !== undefined) return { ...json(a.status, a.value, a.headers), code: a.code };
		return { status: a.status, raw: a.text ?? '', headers: a.headers };
	}

	private delay(): Promise<void> {
		const ms = this.latencyMs;
		return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
	}

	private process(ctx: Ctx): Resp {
		const routes = this.routes[ctx.path];
		const unsupported = CODES.unsupportedOperation;
		if (!routes)
			return errorResp(404, unsupported.code, `${unsupported.msg} (unknown path '${ctx.path}')`);
		const route = routes[ctx.method as Method];
		if (!route) {
			const allowed = Object.keys(routes).join(' or ');
			return errorResp(
				405,
				unsupported.code,
				`${unsupported.msg} (method ${ctx.method} not allowed on '${ctx.path}', use ${allowed})`,
			);
		}
		try {
			if (!route.signed) return route.handler(ctx, null);
			const auth = this.authenticate(ctx, route);
			if ('status' in auth) return auth;
			return route.handler(ctx, auth);
		} catch (e) {
			if (e instanceof ApiError) return errorResp(e.status, e.code, e.message);
			return errorResp(
				500,
				CODES.unknownError.code,
				`${CODES.unknownError.msg} (${e instanceof Error ? e.message : String(e)})`,
			);
		}
	}

	/** Spec section 5: API key, weight, signature, timestamp, permission. */
	private authenticate(ctx: Ctx, route: Route): Authed | Resp {
		const apiKey = ctx.req.headers['x-apikey'];
		const key = typeof apiKey === 'string' ? KEYS_BY_API_KEY.get(apiKey) : undefined;
		if (!key)
			throw apiError(
				CODES.invalidApiKey,
				typeof apiKey === 'string' ? 'unknown X-APIKEY' : 'X-APIKEY header missing',
			);

		const retryAfter = this.limiter.charge(key.apiKey, route.weight, Date.now());
		if (retryAfter !== null) {
			return errorResp(429, CODES.rateLimited.code, CODES.rateLimited.msg, {
				'Retry-After': String(retryAfter),
			});
		}

		// 5.3: signature in the query string or in a form body; totalParams = query + body, no '&' between
		const queryPairs = splitPairs(ctx.query);
		const isForm = mediaType(ctx.req) === 'application/x-www-form-urlencoded';
		const bodyPairs = isForm ? splitPairs(ctx.body) : [];
		const sigPairs = [...queryPairs, ...bodyPairs].filter((p) => p.name === 'signature');
		if (sigPairs.length === 0) throw fieldError('signature');
		if (sigPairs.length > 1) throw fieldError('signature', 'sent more than once');
		const queryText = queryPairs
			.filter((p) => p.name !== 'signature')
			.map((p) => p.raw)
			.join('&');
		const bodyText = isForm
			? bodyPairs
					.filter((p) => p.name !== 'signature')
					.map((p) => p.raw)
					.join('&')
			: ctx.body;
		const totalParams = queryText + bodyText;
		const given = decodeComponent(sigPairs[0].value, 'signature');
		const expected = createHmac('sha256', key.secret).update(totalParams, 'utf8').digest('hex');
		if (
			!/^[0-9a-fA-F]{64}$/.test(given) ||
			!timingSafeEqual(Buffer.from(given.toLowerCase(), 'ascii'), Buffer.from(expected, 'ascii'))
		) {
			throw new ApiError(
				CODES.badSignature.status,
				this.behaviour.signatureErrorCode,
				CODES.badSignature.msg,
			);
		}

		const queryParams = toParamMap(queryPairs.filter((p) => p.name !== 'signature'));
		const allParams = toParamMap(
			bodyPairs.filter((p) => p.name !== 'signature'),
			new Map(queryParams),
		);

		// 5.4: timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow
		const ts = allParams.get('timestamp');
		if (ts === undefined || !/^\d{1,16}$/.test(ts))
			throw fieldError('timestamp', 'millisecond timestamp');
		const rw = allParams.get('recvWindow');
		let recvWindow = DEFAULT_RECV_WINDOW;
		if (rw !== undefined) {
			if (!/^\d{1,10}$/.test(rw) || Number(rw) > MAX_RECV_WINDOW)
				throw fieldError('recvWindow', `0 to ${MAX_RECV_WINDOW} ms`);
			recvWindow = Number(rw);
		}
		const timestamp = Number(ts);
		if (!(timestamp < ctx.serverTime + 1000 && ctx.serverTime - timestamp <= recvWindow)) {
			throw apiError(CODES.timestampOutsideWindow);
		}

		if (route.permission && !key.permissions.includes(route.permission)) {
			throw apiError(CODES.noPermission, `this API key lacks the '${route.permission}' permission`);
		}
		return { key, queryParams, allParams };
	}

	// ---------------------------------------------------------------- endpoints

	private history(ctx: Ctx, auth: Authed): Resp {
		const p = auth.queryParams;
		const ms = (name: string): number => {
			const v = p.get(name);
			if (v === undefined || !/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
			return Number(v);
		};
		const startTime = ms('startTime');
		const endTime = ms('endTime');
		const ftRaw = p.get('flowType');
		if (ftRaw === undefined || !/^\d{1,4}$/.test(ftRaw) || !FLOW_TYPES[Number(ftRaw)]) {
			throw fieldError('flowType', `one of ${Object.keys(FLOW_TYPES).join(', ')}`);
		}
		const flowType = Number(ftRaw);
		let accountType: number | undefined;
		const atRaw = p.get('accountType');
		if (atRaw !== undefined) {
			if (!/^\d{1,2}$/.test(atRaw) || !ACCOUNT_TYPE_VALUES.includes(Number(atRaw))) {
				throw fieldError('accountType', `one of ${ACCOUNT_TYPE_VALUES.join(', ')}`);
			}
			accountType = Number(atRaw);
		}
		let limit = DEFAULT_HISTORY_LIMIT;
		const limRaw = p.get('limit');
		if (limRaw !== undefined) {
			if (!/^\d{1,4}$/.test(limRaw) || Number(limRaw) < 1 || Number(limRaw) > MAX_HISTORY_LIMIT) {
				throw fieldError('limit', `1 to ${MAX_HISTORY_LIMIT}`);
			}
			limit = Number(limRaw);
		}
		if (startTime > endTime) throw fieldError('startTime', 'startTime must not be after endTime');
		if (auth.key.kind === 'sub' && accountType === 5) {
			throw apiError(CODES.noPermission, 'custody records need a master-account API key');
		}
		const accountIds = accountsOf(auth.key).filter(
			(a) => accountType === undefined || ACCOUNT_TYPES[a] === accountType,
		);
		const fault = ctx.fault;
		// historyOversize: more records than asked for; historyOldestFirst: the page in ascending order
		const extra =
			fault?.kind === 'historyOversize' ? Math.max(1, fault.rule.extraRecords ?? limit) : 0;
		const page = this.engine.queryHistory({
			flowType,
			accountIds,
			startTime,
			endTime,
			limit: limit + extra,
		});
		return json(200, fault?.kind === 'historyOldestFirst' ? page.reverse() : page);
	}

	private transfer(auth: Authed): Resp {
		if (auth.key.kind !== 'master') {
			throw apiError(CODES.noPermission, 'asset transfers need a master-account API key');
		}
		const p = auth.queryParams;
		const r = this.engine.transfer(auth.key, {
			fromAccountId: p.get('fromAccountId'),
			toAccountId: p.get('toAccountId'),
			coin: p.get('coin'),
			quantity: p.get('quantity'),
		});
		// The family's answer (CCXT comments): the transfer id is `orderId`, the time a JSON number.
		return json(200, {
			success: true,
			timestamp: Number(r.timestamp),
			clientOrderId: '',
			orderId: r.id,
		});
	}

	private singleOrder(ctx: Ctx, auth: Authed, test = false): Resp {
		if (ctx.body !== '' && mediaType(ctx.req) !== 'application/x-www-form-urlencoded') {
			throw fieldError(
				'Content-Type',
				'send order parameters in the query string or an application/x-www-form-urlencoded body',
			);
		}
		const input: OrderInput = {};
		for (const [k, v] of auth.allParams) input[k] = v;
		try {
			const placed = this.engine.placeOrder(auth.key, input, 'single', test);
			return json(200, test ? {} : placed);
		} catch (e) {
			if (e instanceof OrderFail) throw e.toApiError();
			throw e;
		}
	}

	/** POST /api/v1/spot/orderTest: every check of a single order (balance and client order id too), nothing placed; answers {}. */
	private testOrder(ctx: Ctx, auth: Authed): Resp {
		return this.singleOrder(ctx, auth, true);
	}

	private batchOrders(ctx: Ctx, auth: Authed): Resp {
		if (mediaType(ctx.req) !== 'application/json') {
			throw fieldError('Content-Type', 'a batch is an application/json body');
		}
		let parsed: JsonValue;
		try {
			parsed = parseJson(ctx.body);
		} catch {
			throw fieldError('body', 'not valid JSON; expected a JSON array of orders');
		}
		if (!Array.isArray(parsed)) throw fieldError('body', 'expected a JSON array of orders');
		if (parsed.length === 0) throw fieldError('body', 'the batch is empty');
		if (parsed.length > MAX_BATCH_ORDERS)
			throw apiError(CODES.batchTooLarge, `at most ${MAX_BATCH_ORDERS} orders per batch`);
		const symbols = new Set<string>();
		for (const o of parsed) {
			if (isObject(o) && typeof o.symbol === 'string' && o.symbol !== '') symbols.add(o.symbol);
		}
		if (symbols.size > 1)
			throw fieldError('symbol', 'all orders of a batch must have the same symbol');

		const stringCodes = this.behaviour.batchEntryCodes === 'string';
		const entryCode = (code: string): number | string => (stringCodes ? code : intCode(code));
		const okCode = stringCodes ? '0000' : 0;
		let result: Array<Record<string, unknown> | null> = parsed.map((o) => {
			if (!isObject(o)) {
				return {
					code: entryCode(CODES.invalidField.code),
					msg: "Create order failed: Required field 'order' missing or invalid (must be a JSON object)",
				};
			}
			try {
				const order = this.engine.placeOrder(auth.key, o as OrderInput, 'batch');
				return { code: okCode, msg: 'success', order };
			} catch (e) {
				if (e instanceof OrderFail) return { code: entryCode(e.stringCode), msg: e.batchMessage };
				throw e;
			}
		});
		const first = parsed[0];
		const stpMode =
			isObject(first) && (first.stpMode === 'EXPIRE_TAKER' || first.stpMode === 'EXPIRE_MAKER')
				? first.stpMode
				: 'EXPIRE_TAKER';
		let code: number | string = this.behaviour.batchSuccessCode;
		switch (ctx.fault?.kind) {
			case 'batchReorder':
				result = [...result].reverse();
				break;
			case 'batchCode0000':
				code = '0000';
				break;
			case 'batchTopCodeNonZero':
				code = CODES.unknownError.code;
				break;
			case 'batchNullEntry':
				result = [...result.slice(0, -1), null];
				break;
			case 'batchEntryNoCode':
				result = result.map((e) => {
					if (e === null) return e;
					const withoutCode: Record<string, unknown> = { ...e };
					delete withoutCode.code;
					return withoutCode;
				});
				break;
			default:
				break;
		}
		return json(200, { code, result, concentration: '', stpMode });
	}

	private queryOrder(auth: Authed): Resp {
		const p = auth.queryParams;
		const accounts = this.orderAccounts(auth.key, p.get('accountId'));
		const orderId = p.get('orderId');
		const clientOrderId = p.get('origClientOrderId');
		if (orderId === undefined && clientOrderId === undefined)
			throw fieldError('orderId', 'send orderId or origClientOrderId');
		if (orderId !== undefined && !/^\d{1,20}$/.test(orderId))
			throw fieldError('orderId', 'numeric order id');
		if (orderId === undefined && clientOrderId === '') throw fieldError('origClientOrderId');
		// orderId wins when both are sent
		const o = this.engine.orders.find(
			accounts,
			orderId !== undefined ? { orderId } : { clientOrderId },
		);
		if (!o) throw apiError(CODES.orderNotFound);
		return json(200, this.engine.orders.view(o));
	}

	/** DELETE /api/v1/spot/order: cancel one order by orderId or clientOrderId (orderId wins). */
	private cancelOrder(auth: Authed): Resp {
		const p = auth.allParams;
		const orderId = p.get('orderId');
		const clientOrderId = p.get('clientOrderId');
		if (orderId === undefined && clientOrderId === undefined)
			throw fieldError('orderId', 'send orderId or clientOrderId');
		if (orderId !== undefined && !/^\d{1,20}$/.test(orderId))
			throw fieldError('orderId', 'numeric order id');
		if (orderId === undefined && clientOrderId === '') throw fieldError('clientOrderId');
		const o = this.engine.orders.find(
			orderAccountsOf(auth.key),
			orderId !== undefined ? { orderId } : { clientOrderId },
		);
		if (!o) throw apiError(CODES.orderNotOnBook);
		return json(200, this.engine.orders.cancel(o, 'single', auth.key.apiKey));
	}

	/** Optional symbol (known, else 0201), side and paging order id of the order lists. */
	private orderFilter(p: Map<string, string>, pageParam: string): OrderListFilter {
		const f: OrderListFilter = {};
		const symbol = p.get('symbol');
		if (symbol !== undefined) {
			if (symbol === '') throw fieldError('symbol');
			if (!SYMBOLS[symbol]) throw apiError(CODES.instrumentNotFound, `'${symbol}'`);
			f.symbol = symbol;
		}
		const side = p.get('side');
		if (side !== undefined) {
			if (side !== 'BUY' && side !== 'SELL') throw fieldError('side', 'BUY or SELL');
			f.side = side as OrderSide;
		}
		const from = p.get(pageParam);
		if (from !== undefined) {
			if (!/^\d{1,20}$/.test(from)) throw fieldError(pageParam, 'numeric order id');
			f.beforeOrderId = from;
		}
		return f;
	}

	private limitParam(p: Map<string, string>, dflt: number, max: number, cap: boolean): number {
		const raw = p.get('limit');
		if (raw === undefined) return dflt;
		if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || (!cap && Number(raw) > max))
			throw fieldError('limit', `1 to ${max}`);
		return Math.min(Number(raw), max);
	}

	/**
	 * GET /api/v1/spot/openOrders, newest first. As the family documents it for a master key without
	 * accountId: the main trading account first, then, when that gave fewer than 500, the sub account.
	 */
	private openOrders(auth: Authed): Resp {
		const p = auth.queryParams;
		const accounts = this.orderAccounts(auth.key, p.get('accountId'));
		const f = this.orderFilter(p, 'fromOrderId');
		const limit = this.limitParam(p, DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT, false);
		const out = this.engine.orders.list(accounts[0], true, f, limit);
		for (const acc of accounts.slice(1)) {
			if (out.length >= DEFAULT_OPEN_ORDERS_LIMIT || out.length >= limit) break;
			out.push(...this.engine.orders.list(acc, true, f, limit - out.length));
		}
		return json(
			200,
			out.map((o) => this.engine.orders.view(o)),
		);
	}

	/** GET /api/v1/spot/tradeOrders: final orders (filled, cancelled) of the last 90 days, newest first, paged by orderId. */
	private pastOrders(auth: Authed): Resp {
		const p = auth.queryParams;
		const accounts = this.orderAccounts(auth.key, p.get('accountId'));
		const f = this.orderFilter(p, 'orderId');
		const limit = this.limitParam(p, DEFAULT_OPEN_ORDERS_LIMIT, MAX_OPEN_ORDERS_LIMIT, false);
		const ms = (name: string): number | undefined => {
			const v = p.get(name);
			if (v === undefined) return undefined;
			if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
			return Number(v);
		};
		const startTime = ms('startTime');
		const endTime = ms('endTime');
		if (startTime !== undefined && endTime !== undefined && startTime > endTime) {
			throw fieldError('startTime', 'startTime must not be after endTime');
		}
		f.startTime = Math.max(startTime ?? 0, this.engine.orders.pastCutoff());
		if (endTime !== undefined) f.endTime = endTime;
		const all = accounts.flatMap((acc) => this.engine.orders.list(acc, false, f, limit));
		all.sort((a, b) => cmpId(b.orderId, a.orderId));
		return json(
			200,
			all.slice(0, limit).map((o) => this.engine.orders.view(o)),
		);
	}

	/**
	 * DELETE /api/v1/spot/openOrders: the key's own trading account only (a master key's sub account
	 * is left alone), newest first, at most `limit` (default 100, at most 200) per request.
	 */
	private cancelOpenOrders(auth: Authed): Resp {
		const p = auth.allParams;
		const f = this.orderFilter(p, 'fromOrderId');
		const limit = this.limitParam(p, DEFAULT_CANCEL_ALL_LIMIT, MAX_CANCEL_ALL_LIMIT, true);
		const orders = this.engine.orders.list(tradingAccountOf(auth.key), true, f, limit);
		for (const o of orders) this.engine.orders.cancel(o, 'symbol', auth.key.apiKey);
		if (this.behaviour.cancelOpenOrdersAnswer === 'successOnly')
			return json(200, { success: true });
		const lastOrderId = orders.length > 0 ? orders[orders.length - 1].orderId : '0';
		return json(200, { code: '0', message: 'success', timestamp: this.now(), lastOrderId });
	}

	/**
	 * DELETE /api/v1/spot/cancelOrderByIds: `ids` comma-separated (at most 100). `result` lists only
	 * the ids that were not cancelled, each with its code as a string.
	 */
	private cancelOrdersByIds(auth: Authed): Resp {
		const raw = auth.allParams.get('ids');
		if (raw === undefined || raw === '') throw fieldError('ids', 'comma-separated order ids');
		const ids = raw.split(',');
		if (ids.some((id) => !/^\d{1,20}$/.test(id)))
			throw fieldError('ids', 'comma-separated numeric order ids');
		if (ids.length > MAX_CANCEL_IDS)
			throw apiError(CODES.batchTooLarge, `at most ${MAX_CANCEL_IDS} ids per request`);
		const failed: Array<{ orderId: string; code: string }> = [];
		for (const orderId of ids) {
			const o = this.engine.orders.find(orderAccountsOf(auth.key), { orderId });
			const err = o ? OrderBook.finalError(o) : apiError(CODES.orderNotOnBook);
			if (err) failed.push({ orderId, code: err.code });
			else this.engine.orders.cancel(o!, 'ids', auth.key.apiKey);
		}
		const result =
			failed.length === 0 && this.behaviour.cancelByIdsAllCancelled === 'null' ? null : failed;
		return json(200, { code: '0000', result });
	}

	/** GET /api/v1/account: balances of the key's trading account, or of `accountId` (one of the key's accounts). */
	private account(auth: Authed): Resp {
		const accountId = auth.queryParams.get('accountId');
		let acc = tradingAccountOf(auth.key);
		if (accountId !== undefined) {
			if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
			if (!accountsOf(auth.key).includes(accountId))
				throw apiError(CODES.accountNotAllowed, `'${accountId}' is not one of your accounts`);
			acc = accountId;
		}
		return json(200, { balances: this.engine.balanceLines(acc), userId: DEMO_USER_ID });
	}

	/** The trading accounts an order read covers: the optional accountId (must be visible to the key) or all visible. */
	private orderAccounts(key: DemoKey, accountId: string | undefined): string[] {
		const visible = orderAccountsOf(key);
		if (accountId === undefined) return visible;
		if (!/^\d{1,20}$/.test(accountId)) throw fieldError('accountId', 'numeric account id');
		if (!visible.includes(accountId))
			throw apiError(
				CODES.accountNotAllowed,
				`'${accountId}' is not a trading account of this key`,
			);
		return [accountId];
	}
}

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
	return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}
