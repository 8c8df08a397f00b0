/**
 * Authentication of a signed request (spec section 5), in the order the checks are made: API key,
 * the key's state (expired, IP access list), weight budget, signature (written straight from spec
 * 5.3; it shares no code with nodes/ or credentials/), timestamp and recvWindow (5.4), permission
 * (5.1). An Ed25519 key's signature is the Base64 Ed25519 signature of the same text.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';

import { CODES } from './codes';
import { DEFAULT_RECV_WINDOW, DEMO_KEYS, MAX_RECV_WINDOW } from './constants';
import { ApiError, apiError, fieldError } from './errors';
import { decodeComponent, mediaType, splitPairs, toParamMap, type Pair } from './http';
import { realNow } from './realClock';
import { errorResp, type Resp } from './response';
import type { Authed, RequestContext, Route, Services } from './routes/route';
import type { DemoKey } from './types';

/** The history list, which behaviour `historyRefusedKeys` closes to some keys. */
const HISTORY_PATH = '/api/v1/account/balanceFlow';

const KEYS_BY_API_KEY = new Map<string, DemoKey>(
	Object.values(DEMO_KEYS).map((k) => [k.apiKey, k]),
);

/** The demo key the X-APIKEY header names; throws 0102 for a missing or unknown one. */
export function keyOf(ctx: RequestContext): DemoKey {
	const apiKey = ctx.req.headers['x-apikey'];
	const key = typeof apiKey === 'string' ? KEYS_BY_API_KEY.get(apiKey) : undefined;
	if (!key)
		throw apiError(
			CODES.invalidApiKey,
			typeof apiKey === 'string' ? 'unknown X-APIKEY' : 'X-APIKEY header missing',
		);
	return key;
}

/**
 * The key's state on the exchange's API Management page: expired (0103) or used from an IP its
 * access list lacks (0202); behaviours expiredKeys and keyIpAllowList. Signed requests only: market
 * data is public, the key it carries is not checked beyond being known.
 */
function checkKeyState(key: DemoKey, ctx: RequestContext, services: Services): void {
	if (services.behaviour.expiredKeys.includes(key.apiKey)) throw apiError(CODES.apiKeyExpired);
	const allowed = services.behaviour.keyIpAllowList[key.apiKey];
	if (allowed === undefined) return;
	const ip = (ctx.req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
	if (!allowed.includes(ip)) throw apiError(CODES.invalidIp, `${ip} is not allowed for this key`);
}

const withoutSignature = (pairs: Pair[]): Pair[] => pairs.filter((p) => p.name !== 'signature');

/** Whether `given` (the decoded query value) signs `totalParams` with the key. */
function signatureMatches(key: DemoKey, totalParams: string, given: string): boolean {
	if (key.ed25519PublicKey !== undefined) {
		// Standard Base64 of 64 bytes, padded; a hex HMAC signature is refused here.
		if (!/^[A-Za-z0-9+/]{86}==$/.test(given)) return false;
		const publicKey = createPublicKey(key.ed25519PublicKey);
		const data = Buffer.from(totalParams, 'utf8');
		return verify(null, data, publicKey, Buffer.from(given, 'base64'));
	}
	const expected = createHmac('sha256', key.secret).update(totalParams, 'utf8').digest('hex');
	return (
		/^[0-9a-fA-F]{64}$/.test(given) &&
		timingSafeEqual(Buffer.from(given.toLowerCase(), 'ascii'), Buffer.from(expected, 'ascii'))
	);
}

/**
 * 5.3: the signature sits in the query string or in a form body; the signed text is the query
 * plus the body with no '&' between them, the signature pair left out. Throws 0001 for a missing
 * or repeated signature, `signatureErrorCode` for a wrong one. Returns the query's parameters and
 * the query's plus the form body's.
 */
export function verifySignature(
	ctx: RequestContext,
	key: DemoKey,
	signatureErrorCode: string,
): Omit<Authed, 'key'> {
	const queryPairs = splitPairs(ctx.query);
	const isForm = mediaType(ctx.req) === 'application/x-www-form-urlencoded';
	const bodyPairs = isForm ? splitPairs(ctx.body) : [];
	const sigPairs = [...queryPairs, ...bodyPairs].filter((p) => p.name === 'signature');
	if (sigPairs.length === 0) throw fieldError('signature');
	if (sigPairs.length > 1) throw fieldError('signature', 'sent more than once');
	const queryText = withoutSignature(queryPairs)
		.map((p) => p.raw)
		.join('&');
	const bodyText = isForm
		? withoutSignature(bodyPairs)
				.map((p) => p.raw)
				.join('&')
		: ctx.body;
	const totalParams = queryText + bodyText;
	const given = decodeComponent(sigPairs[0].value, 'signature');
	if (!signatureMatches(key, totalParams, given))
		throw new ApiError(CODES.badSignature.status, signatureErrorCode, CODES.badSignature.msg);
	const queryParams = toParamMap(withoutSignature(queryPairs));
	const allParams = toParamMap(withoutSignature(bodyPairs), new Map(queryParams));
	return { queryParams, allParams };
}

/**
 * 5.4: timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow (default 5000). The UAE
 * documentation caps recvWindow at 8000 and refuses more without naming a code: 0001, the code of
 * any other invalid parameter.
 */
export function checkTimestamp(params: Map<string, string>, serverTime: number): void {
	const ts = params.get('timestamp');
	if (ts === undefined || !/^\d{1,16}$/.test(ts))
		throw fieldError('timestamp', 'millisecond timestamp');
	const rw = params.get('recvWindow');
	let recvWindow = DEFAULT_RECV_WINDOW;
	if (rw !== undefined) {
		if (!/^\d{1,10}$/.test(rw) || Number(rw) > MAX_RECV_WINDOW)
			throw fieldError('recvWindow', `0 to ${MAX_RECV_WINDOW} ms`);
		recvWindow = Number(rw);
	}
	const timestamp = Number(ts);
	if (!(timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow)) {
		throw apiError(CODES.timestampOutsideWindow);
	}
}

/** Charge the route's weight to the key: a 429 answer when its budget is spent, else null. */
function chargeWeight(
	key: DemoKey,
	ctx: RequestContext,
	route: Route,
	services: Services,
): Resp | null {
	// the budget runs on the real clock, not the offset server clock
	const retryAfter = services.limiter.charge(key.apiKey, route, ctx.path, realNow());
	if (retryAfter === null) return null;
	return errorResp(429, CODES.rateLimited.code, CODES.rateLimited.msg, {
		'Retry-After': String(retryAfter),
	});
}

/**
 * A market-data request: a valid API key (0102 otherwise; any permission) and the route's weight.
 * No signature or timestamp is asked for; one sent along is ignored like any unknown parameter.
 */
export function authenticateKeyOnly(
	ctx: RequestContext,
	route: Route,
	services: Services,
): Authed | Resp {
	const key = keyOf(ctx);
	const refused = chargeWeight(key, ctx, route, services);
	if (refused) return refused;
	const queryParams = toParamMap(splitPairs(ctx.query));
	return { key, queryParams, allParams: queryParams };
}

/**
 * Spec section 5: API key, weight, signature, timestamp, permission. Throws an ApiError for a
 * rejected request; answers 429 (as a Resp) when the key's weight budget is spent. A key named in
 * behaviour `historyRefusedKeys` may not read the history: -1005, as a key without the permission.
 */
export function authenticate(ctx: RequestContext, route: Route, services: Services): Authed | Resp {
	const key = keyOf(ctx);
	checkKeyState(key, ctx, services);
	const refused = chargeWeight(key, ctx, route, services);
	if (refused) return refused;
	const params = verifySignature(ctx, key, services.behaviour.signatureErrorCode);
	checkTimestamp(params.allParams, ctx.serverTime);
	const dropped = services.behaviour.droppedPermissions[key.apiKey] ?? [];
	if (
		route.permission &&
		(!key.permissions.includes(route.permission) || dropped.includes(route.permission))
	) {
		throw apiError(CODES.noPermission, `this API key lacks the '${route.permission}' permission`);
	}
	if (ctx.path === HISTORY_PATH && services.behaviour.historyRefusedKeys.includes(key.apiKey)) {
		throw apiError(CODES.noPermission, 'this API key may not read the history');
	}
	return { key, ...params };
}
