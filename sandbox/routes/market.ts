/**
 * Market data and exchange information: GET /api/v1/exchangeInfo and GET /quote/v1/{ticker/price,
 * ticker/24hr, depth, trades, klines}. The UAE documentation: "All market-related APIs do not
 * require signature verification"; the API description (MARKET_DATA) asks for a valid API key. So
 * these routes check X-APIKEY (0102) and charge its weight, and take no signature or timestamp (one
 * sent along is ignored, and shows in ledger.requests). Every one takes `site` (MENA | HK, default
 * HK as documented): without it the HK catalogue answers.
 */
import { CODES } from '../codes';
import { apiError, fieldError } from '../errors';
import { CONTRACTS, exchangeInfoContract, findContract } from '../futures/contracts';
import type { MarketSymbol, Site } from '../market/catalogue';
import { exchangeInfoSymbol } from '../market/catalogue';
import { KLINE_INTERVAL_MS, depth, klines, ticker24h, tickerPrice, trades } from '../market/data';
import type { Market } from '../market/market';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

/** Levels a side of GET /quote/v1/depth: default 100, at most 200 (the UAE documentation). */
export const DEPTH_LIMIT = { default: 100, max: 200 };
/** Trades of GET /quote/v1/trades: default and most 100. */
export const TRADES_LIMIT = { default: 100, max: 100 };
/** Candles of GET /quote/v1/klines: at most 1000; default 1000 (the documentation names none). */
export const KLINES_LIMIT = { default: 1000, max: 1000 };

function siteOf(p: Map<string, string>): Site {
	const site = p.get('site');
	if (site === undefined || site === '') return 'HK';
	if (site === 'MENA' || site === 'HK') return site;
	throw fieldError('site', 'MENA or HK');
}

function knownSymbol(market: Market, site: Site, name: string): MarketSymbol {
	const s = market.find(site, name);
	if (!s) throw apiError(CODES.instrumentNotFound, `'${name}' is not listed on site ${site}`);
	return s;
}

/** A required symbol of the site's catalogue (0001 missing, 0201 unknown). */
function requiredSymbol(market: Market, p: Map<string, string>, site: Site): MarketSymbol {
	const name = p.get('symbol');
	if (name === undefined || name === '') throw fieldError('symbol');
	return knownSymbol(market, site, name);
}

/** An optional symbol: every symbol of the site when absent or empty. */
function symbolsAsked(market: Market, p: Map<string, string>, site: Site): readonly MarketSymbol[] {
	const name = p.get('symbol');
	if (name === undefined || name === '') return market.symbols(site);
	return [knownSymbol(market, site, name)];
}

function limitOf(p: Map<string, string>, l: { default: number; max: number }): number {
	const v = p.get('limit');
	if (v === undefined) return l.default;
	if (!/^\d{1,7}$/.test(v) || Number(v) < 1 || Number(v) > l.max)
		throw fieldError('limit', `1 to ${l.max}`);
	return Number(v);
}

function timeOf(p: Map<string, string>, name: string): number | undefined {
	const v = p.get(name);
	if (v === undefined) return undefined;
	if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
	return Number(v);
}

/**
 * GET /api/v1/exchangeInfo: the site's symbols (or one), with their filters, and on site MENA the
 * perpetual contracts (`contracts`, futures/contracts.ts). `symbol` may name a contract: that one
 * is listed under `contracts` and `symbols` is empty.
 */
export function exchangeInfo(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const { market } = services;
	const p = auth.queryParams;
	const site = siteOf(p);
	const name = p.get('symbol');
	const contract = site === 'MENA' && name !== undefined ? findContract(name) : undefined;
	const list = contract ? [] : symbolsAsked(market, p, site);
	const contracts =
		site !== 'MENA'
			? []
			: contract
				? [contract]
				: name !== undefined && name !== ''
					? []
					: CONTRACTS;
	const coins = new Map<string, string>();
	for (const s of list) {
		coins.set(s.base, s.base);
		coins.set(s.quote, s.quote);
	}
	return json(200, {
		timezone: 'UTC',
		serverTime: services.now(),
		brokerFilters: [],
		symbols: list.map((s) => exchangeInfoSymbol(s, market.mode, site)),
		options: [],
		contracts: contracts.map(exchangeInfoContract),
		coins: [...coins.keys()].sort().map((c) => ({
			orgId: '9001',
			coinId: c,
			coinName: c,
			coinFullName: c,
			allowWithdraw: true,
			allowDeposit: true,
			tokenType: 'ERC20_TOKEN',
			chainTypes: [],
		})),
		site: site.toLowerCase(),
	});
}

/** GET /quote/v1/ticker/price: [{s, p}] for one symbol or all. */
export function tickerPriceRoute(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.queryParams;
	const site = siteOf(p);
	return json(
		200,
		symbolsAsked(services.market, p, site).map((s) => tickerPrice(services.market, s)),
	);
}

/** GET /quote/v1/ticker/24hr: [{t, s, c, h, l, o, b, a, v, qv, it}]; instType SPOT (default), FUTURES, ANY. */
export function ticker24hRoute(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.queryParams;
	const site = siteOf(p);
	const instType = p.get('instType') ?? 'SPOT';
	if (instType !== 'SPOT' && instType !== 'FUTURES' && instType !== 'ANY')
		throw fieldError('instType', 'SPOT, FUTURES or ANY');
	const list = symbolsAsked(services.market, p, site);
	// the sandbox lists no futures: FUTURES answers an empty list
	if (instType === 'FUTURES') return json(200, []);
	return json(
		200,
		list.map((s) => ticker24h(services.market, s)),
	);
}

/** GET /quote/v1/depth: {t, b: [[price, qty]…], a: [[price, qty]…]}. */
export function depthRoute(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.queryParams;
	const site = siteOf(p);
	const s = requiredSymbol(services.market, p, site);
	return json(200, depth(services.market, s, limitOf(p, DEPTH_LIMIT)));
}

/** GET /quote/v1/trades: [{t, p, q, ibm}], oldest first. */
export function tradesRoute(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.queryParams;
	const site = siteOf(p);
	const s = requiredSymbol(services.market, p, site);
	return json(200, trades(services.market, s, limitOf(p, TRADES_LIMIT)));
}

/** GET /quote/v1/klines: the newest `limit` candles of [startTime, endTime], oldest first. */
export function klinesRoute(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const p = auth.queryParams;
	const site = siteOf(p);
	const s = requiredSymbol(services.market, p, site);
	const interval = p.get('interval');
	if (interval === undefined || !Object.prototype.hasOwnProperty.call(KLINE_INTERVAL_MS, interval))
		throw fieldError('interval', Object.keys(KLINE_INTERVAL_MS).join(', '));
	const limit = limitOf(p, KLINES_LIMIT);
	const startTime = timeOf(p, 'startTime');
	const endTime = timeOf(p, 'endTime');
	if (startTime !== undefined && endTime !== undefined && startTime > endTime)
		throw fieldError('startTime', 'not after endTime');
	return json(200, klines(services.market, s, interval, limit, startTime, endTime));
}
