/**
 * The wallet reads (signed, read permission, query class):
 *
 * - GET /api/v1/account/depositOrders, weight 5 (hashkeypro-apidoc "Get Deposit History"): coin
 *   (`Chain_Coin`, e.g. ETH_USDT, or the coin alone, as the family's pages show both), startTime,
 *   endTime, depositOrderId, clientOrderId, limit (default 500, at most 1000). fromId is "to be
 *   released": refused. No default time bounds, no range limit (the page states none).
 * - GET /api/v1/account/withdrawOrders, weight 5 (the family's "Withdrawal records"): coin,
 *   startTime, endTime, withdrawOrderId, limit as above; startTime and endTime at most 7 days apart
 *   (the family's note), by default the 7 days up to endTime (or now).
 * - GET /api/v1/account/deposit/address, weight 1 (the family's "Deposit Address"): coin and
 *   chainType, both required.
 *
 * Lists are newest first (time, then ID, descending): the newest `limit` records of the range;
 * behaviour `walletOrder` 'ascending' lists the earliest `limit` earliest first. Both bounds include
 * the records at them; behaviour `walletEndTime` 'exclusive' leaves out those AT endTime (the
 * documentation says neither). Custody records are the master user's: a sub account's key is
 * refused -1005, as the history's custody records are.
 */
import { CODES } from '../codes';
import { DAY_MS } from '../constants';
import { apiError, fieldError } from '../errors';
import { json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from '../routes/route';
import { DEPOSIT_CHAINS, depositAddress, walletOf } from './wallet';

export const DEFAULT_WALLET_LIMIT = 500;
export const MAX_WALLET_LIMIT = 1000;
export const WITHDRAWAL_RANGE_DAYS = 7;

interface ListQuery {
	startTime?: number;
	endTime?: number;
	limit: number;
	/** Behaviour walletEndTime 'exclusive': records AT endTime are left out. */
	endExclusive?: boolean;
}

function masterOnly(auth: Authed): void {
	if (auth.key.kind === 'sub')
		throw apiError(CODES.noPermission, 'custody records need a master-account API key');
}

function listQuery(p: Map<string, string>): ListQuery {
	const ms = (name: string): number | undefined => {
		const v = p.get(name);
		if (v === undefined) return undefined;
		if (!/^\d{1,16}$/.test(v)) throw fieldError(name, 'millisecond timestamp');
		return Number(v);
	};
	if (p.has('fromId')) throw fieldError('fromId', 'to be released: not supported yet');
	const q: ListQuery = { startTime: ms('startTime'), endTime: ms('endTime'), limit: 500 };
	const limit = p.get('limit');
	if (limit !== undefined) {
		if (!/^\d{1,6}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_WALLET_LIMIT)
			throw fieldError('limit', `1 to ${MAX_WALLET_LIMIT}`);
		q.limit = Number(limit);
	}
	if (q.startTime !== undefined && q.endTime !== undefined && q.startTime > q.endTime)
		throw fieldError('startTime', 'startTime must not be after endTime');
	return q;
}

const inRange = (time: string, q: ListQuery): boolean =>
	(q.startTime === undefined || Number(time) >= q.startTime) &&
	(q.endTime === undefined || Number(time) < q.endTime + (q.endExclusive === true ? 0 : 1));

/** The page: the first `limit` records in the behaviour's order (the list is newest first). */
function pageOf<R extends { chainType: string }>(list: R[], q: ListQuery, services: Services) {
	const ordered = services.behaviour.walletOrder === 'ascending' ? list.reverse() : list;
	return ordered.slice(0, q.limit).map(answerOf);
}

/** `coin` as `Chain_Coin` (ETH_USDT) or the coin alone (USDT). */
function coinMatches(record: { coin: string; chainType: string }, coin: string | undefined) {
	if (coin === undefined) return true;
	return coin === record.coin || coin === `${record.chainType}_${record.coin}`;
}

/** A record as the list answers it: without the chain, which only the coin filter reads. */
function answerOf<R extends { chainType: string }>(record: R): Omit<R, 'chainType'> {
	const answer: Partial<R> = { ...record };
	delete answer.chainType;
	return answer as Omit<R, 'chainType'>;
}

export function depositOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	masterOnly(auth);
	const p = auth.queryParams;
	const q = { ...listQuery(p), endExclusive: services.behaviour.walletEndTime === 'exclusive' };
	const coin = p.get('coin');
	if (coin === '') throw fieldError('coin');
	const orderId = p.get('depositOrderId');
	const clientOrderId = p.get('clientOrderId');
	const list = walletOf(services.engine, services.now)
		.deposits()
		.filter(
			(d) =>
				inRange(d.time, q) &&
				coinMatches(d, coin) &&
				(orderId === undefined || d.depositOrderId === orderId) &&
				(clientOrderId === undefined || d.clientOrderId === clientOrderId),
		);
	return json(200, pageOf(list, q, services));
}

export function withdrawOrders(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	masterOnly(auth);
	const p = auth.queryParams;
	const q = { ...listQuery(p), endExclusive: services.behaviour.walletEndTime === 'exclusive' };
	const range = WITHDRAWAL_RANGE_DAYS * DAY_MS;
	const endTime = q.endTime ?? (q.startTime === undefined ? services.now() : q.startTime + range);
	const startTime = q.startTime ?? endTime - range;
	if (endTime - startTime > range)
		throw fieldError(
			'endTime',
			`startTime and endTime at most ${WITHDRAWAL_RANGE_DAYS} days apart`,
		);
	const coin = p.get('coin');
	if (coin === '') throw fieldError('coin');
	const orderId = p.get('withdrawOrderId');
	const list = walletOf(services.engine, services.now)
		.withdrawals()
		.filter(
			(w) =>
				inRange(w.time, { ...q, startTime, endTime }) &&
				coinMatches(w, coin) &&
				(orderId === undefined || w.id === orderId),
		);
	return json(200, pageOf(list, q, services));
}

export function depositAddressRoute(_ctx: RequestContext, auth: Authed): Resp {
	masterOnly(auth);
	const coin = auth.queryParams.get('coin');
	const chainType = auth.queryParams.get('chainType');
	if (coin === undefined || coin === '') throw fieldError('coin');
	if (chainType === undefined || chainType === '') throw fieldError('chainType');
	const chains = DEPOSIT_CHAINS[coin];
	if (chains === undefined) throw fieldError('coin', `'${coin}' has no deposit address`);
	const chain = chains[chainType];
	if (chain === undefined)
		throw fieldError('chainType', `${coin} deposits take ${Object.keys(chains).join(', ')}`);
	return json(200, {
		canDeposit: true,
		address: depositAddress(coin, chainType),
		addressExt: '',
		minQuantity: chain.min,
		needAddressTag: false,
		requiredConfirmTimes: 64,
		canWithdrawConfirmTimes: 64,
		coinType: chain.coinType,
	});
}
