import type { IDataObject } from 'n8n-workflow';

import { formatDecimal, parseDecimal, subtractDecimals } from '../helpers/decimals';
import {
	canonical,
	futuresFillId,
	orderEventId,
	stampOf,
	text,
	type BalanceChange,
	type OrderChange,
	type StreamEvent,
} from './events';
import { POSITION_PUSH, positionChangeOfPush } from './positions';

/**
 * The user data stream's messages as events: order reports, balance updates (spot and contract)
 * and position pushes, in the shapes docs/trigger.md lists.
 */

const nonZero = (value: string | undefined): boolean =>
	(parseDecimal(value ?? '')?.units ?? 0n) !== 0n;

/** A flag sent as a JSON boolean or as the text "true" / "false"; anything else is unknown. */
function flag(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	return value === 'true' || value === 'false' ? value === 'true' : undefined;
}

/**
 * The cumulative filled quantity of a report: `z`, or, without it (the UAE documentation's contract
 * report), the order quantity less the remaining one; an order that just rests has filled nothing.
 */
function executedOfReport(report: IDataObject, status: string): string | undefined {
	const cumulative = text(report.z);
	if (cumulative !== undefined && cumulative !== '') return cumulative;
	const ordered = parseDecimal(text(report.q) ?? '');
	const remaining = parseDecimal(text(report.r) ?? '');
	if (ordered !== undefined && remaining !== undefined) {
		const executed = subtractDecimals(ordered, remaining);
		if (executed.units >= 0n) return formatDecimal(executed);
	}
	return status === 'NEW' || status === 'PENDING_NEW' ? '0' : undefined;
}

/** The account a stream event names, if any: `accountId`, or `a` (the family's ticketInfo). */
function accountOfEvent(event: IDataObject): string | undefined {
	const named = text(event.accountId) ?? text(event.a);
	return named !== undefined && /^\d{1,20}$/.test(named) ? named : undefined;
}

/** An executionReport (spot) or contractExecutionReport; undefined when it lacks what an ID needs. */
function orderChangeOfReport(report: IDataObject, receivedAt: number): OrderChange | undefined {
	const orderId = text(report.i);
	const status = text(report.X);
	const symbol = text(report.s);
	if (!orderId || !status || !symbol) return undefined;
	const executed = executedOfReport(report, status);
	if (executed === undefined) return undefined;
	const lastQuantity = text(report.l);
	const change: OrderChange = {
		id: orderEventId(orderId, status, executed),
		source: 'stream',
		market: report.e === 'contractExecutionReport' ? 'contract' : 'spot',
		...stampOf(report.E, receivedAt),
		orderId,
		clientOrderId: text(report.c),
		symbol,
		side: text(report.S),
		orderType: text(report.o),
		status,
		price: text(report.p),
		quantity: text(report.q),
		executedQuantity: executed,
		cumulativeQuoteQuantity: text(report.Z),
		averagePrice: text(report.V),
		orderTime: text(report.O),
		raw: report,
	};
	// A fill's trade: `t` (futures51 contract; the UAE page's contract report is unverified), else `d`
	// (the spot report's name).
	const tradeId = text(report.t) || text(report.d) || undefined;
	if (nonZero(lastQuantity)) {
		change.lastFill = {
			quantity: lastQuantity as string,
			price: text(report.L) ?? '',
			fee: text(report.n),
			feeCoin: text(report.N) || undefined,
			tradeId,
			isMaker: flag(report.m),
		};
	}
	if (change.market === 'contract') {
		// The fill list's trade ID, as a catch-up names the fill; without one, the order's state ID,
		// which a catch-up's fill event carries as its `otherId` (futuresOrders.ts): one event both ways.
		if (change.lastFill !== undefined && tradeId !== undefined) {
			change.otherId = change.id;
			change.id = futuresFillId(tradeId);
		}
		change.reduceOnly = flag(report.C);
		change.leverage = text(report.v) || undefined;
		change.isLiquidation = flag(report.lo);
		change.liquidationType = text(report.lt) || undefined;
	}
	return change;
}

/** The balances of an outboundAccountInfo (or its contract twin), one change per coin. */
function balanceChangesOfUpdate(update: IDataObject, receivedAt: number): BalanceChange[] {
	const lines = Array.isArray(update.B) ? (update.B as unknown[]) : [];
	const stamp = stampOf(update.E, receivedAt);
	const market = update.e === 'outboundContractAccountInfo' ? 'contract' : 'spot';
	return lines.flatMap((line) => {
		if (line === null || typeof line !== 'object') return [];
		const entry = line as IDataObject;
		const coin = text(entry.a);
		const free = text(entry.f);
		// The UAE documentation's contract balance lists no locked amount: unknown, not zero.
		const locked = text(entry.l);
		if (!coin || free === undefined || (locked === undefined && market === 'spot')) return [];
		return [
			{
				id: `balance-${market}-${stamp.time}-${coin}-${canonical(free)}-${locked === undefined ? '' : canonical(locked)}`,
				source: 'stream' as const,
				market,
				...stamp,
				coin,
				free,
				locked,
				raw: entry,
			},
		];
	});
}

const ORDER_REPORTS: unknown[] = ['executionReport', 'contractExecutionReport'];
const BALANCE_UPDATES: unknown[] = ['outboundAccountInfo', 'outboundContractAccountInfo'];

/** Whether an event without a name carries an order update's fields (order ID, status, symbol). */
const looksLikeOrderUpdate = (event: IDataObject): boolean =>
	text(event.i) !== undefined && text(event.X) !== undefined && text(event.s) !== undefined;

/**
 * The events of one stream message, each one change; unknown events are skipped. An event that
 * names another account than `account`, the one the trigger follows, is counted in `foreign`.
 */
export function eventsOfMessage(
	message: unknown,
	receivedAt: number,
	account?: string,
	contractAccount?: string,
): { events: StreamEvent[]; skipped: number; foreign: number } {
	const entries = Array.isArray(message) ? message : [message];
	const events: StreamEvent[] = [];
	let skipped = 0;
	let foreign = 0;
	for (const entry of entries) {
		if (entry === null || typeof entry !== 'object') {
			skipped++;
			continue;
		}
		const event = entry as IDataObject;
		const name = event.e ?? '';
		if (name === POSITION_PUSH) {
			if (contractAccount === undefined) continue;
			// `A` is the account; `a` is not (the family's available size), so accountOfEvent is not asked.
			if (text(event.A) !== contractAccount) {
				foreign++;
				continue;
			}
			const change = positionChangeOfPush(event, receivedAt);
			if (change === undefined) skipped++;
			else events.push({ channel: 'position', ...change });
			continue;
		}
		const isOrder = ORDER_REPORTS.includes(name) || (name === '' && looksLikeOrderUpdate(event));
		const isBalance = BALANCE_UPDATES.includes(name);
		// ticketInfo repeats a fill the executionReport already carries.
		if (!isOrder && !isBalance) continue;
		const named = accountOfEvent(event);
		// A contract report or balance names the futures account, the others the trading account.
		const contract = name === 'contractExecutionReport' || name === 'outboundContractAccountInfo';
		const expected = contract ? (contractAccount ?? account) : account;
		if (expected !== undefined && named !== undefined && named !== expected) {
			foreign++;
			continue;
		}
		if (isOrder) {
			const change = orderChangeOfReport(event, receivedAt);
			if (change === undefined) skipped++;
			else events.push({ channel: 'order', ...change });
		} else {
			for (const change of balanceChangesOfUpdate(event, receivedAt))
				events.push({ channel: 'balance', ...change });
		}
	}
	return { events, skipped, foreign };
}
