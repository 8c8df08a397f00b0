/**
 * What an endpoint handler is given, and the route entry that names its weight, permission and
 * request-rate class.
 */
import type * as http from 'node:http';

import type { Engine } from '../engine';
import type { ActiveFault } from '../faults';
import type { RateLimiter } from '../http';
import type { Market } from '../market/market';
import type { Resp } from '../response';
import type { UserStream } from '../stream/hub';
import type { DemoKey, Permission, SandboxBehaviour } from '../types';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The request-rate class a route counts in, per API key (the UAE documentation's "Order Rate
 * Limiting"): 'order' for the endpoints that create or cancel orders, 'query' for every other one.
 */
export type RateClass = 'order' | 'query';

/** One request as received. */
export interface RequestContext {
	req: http.IncomingMessage;
	method: string;
	/** Path without the query string. */
	path: string;
	/** Raw query string, without the leading '?'. */
	query: string;
	body: string;
	/** Server clock when the request was received. */
	serverTime: number;
	/** The fault picked for this request; inline kinds are the endpoint's to apply. */
	fault: ActiveFault | null;
}

/** A request that passed authentication (spec section 5). */
export interface Authed {
	key: DemoKey;
	/** Query-string parameters (signature removed). */
	queryParams: Map<string, string>;
	/** Query-string plus form-body parameters (signature removed). */
	allParams: Map<string, string>;
}

/** The sandbox state a request is served from. */
export interface Services {
	engine: Engine;
	behaviour: Required<SandboxBehaviour>;
	limiter: RateLimiter;
	/** Symbols, rules and prices (market data and order checks). */
	market: Market;
	/** The user data stream: its listen keys (POST/PUT/DELETE /api/v1/userDataStream). */
	stream: UserStream;
	now(): number;
}

export interface Route {
	weight: number;
	/**
	 * Least real time between two accepted calls of this route by one key (the UAE documentation:
	 * transfers once per second); a call sooner is answered 429 while rate limits are on.
	 */
	minIntervalMs?: number;
	signed: boolean;
	/**
	 * Market data: a valid X-APIKEY (any permission) and its weight, no signature or timestamp
	 * (`signed` false). `queryParams` and `allParams` are then the query string's parameters.
	 */
	keyOnly?: boolean;
	permission?: Permission;
	/** The request-rate class a request with a known API key counts in (requestRates.ts). */
	rateClass: RateClass;
	handler: (ctx: RequestContext, auth: Authed | null, services: Services) => Resp;
}

export type RouteTable = Record<string, Partial<Record<Method, Route>>>;

type SignedHandler = (ctx: RequestContext, auth: Authed, services: Services) => Resp;

function signed(
	permission: Permission,
	weight: number,
	handler: SignedHandler,
	rateClass: RateClass,
): Route {
	return {
		weight,
		signed: true,
		permission,
		rateClass,
		handler: (ctx, auth, services) => handler(ctx, auth!, services),
	};
}

/** A signed route any key with the read permission may call: a query. */
export function read(weight: number, handler: SignedHandler): Route {
	return signed('read', weight, handler, 'query');
}

/**
 * A signed route that needs the trade permission. Its class is named by the route: trade routes
 * are not all order routes (a transfer or an order test is a query).
 */
export function trade(weight: number, handler: SignedHandler, rateClass: RateClass): Route {
	return signed('trade', weight, handler, rateClass);
}

/** A signed route open to every valid key whatever its permissions (no `permission`): a query. */
export function anyKey(weight: number, handler: SignedHandler): Route {
	return {
		weight,
		signed: true,
		rateClass: 'query',
		handler: (ctx, auth, services) => handler(ctx, auth!, services),
	};
}

/**
 * A market-data route: a valid API key, no signature (the UAE documentation; spec MARKET_DATA).
 * A query.
 */
export function keyOnly(weight: number, handler: SignedHandler): Route {
	return {
		weight,
		signed: false,
		keyOnly: true,
		rateClass: 'query',
		handler: (ctx, auth, services) => handler(ctx, auth!, services),
	};
}
