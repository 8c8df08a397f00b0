import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { decimalAbove, formatDecimal, parseDecimal, subtractDecimals } from '../helpers/decimals';
import { inputError } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { toNodeError } from '../transport';
import { outcomeOf, withOutcome } from '../writes/outcomes';
import type { EngineSession, Settled } from '../writes/writeKind';
import { lostRunText } from '../writes/writeSession';
import { readContracts } from './contracts';
import { FUTURES_ENDPOINTS } from './endpoints';
import { requireOwnFuturesAccount } from './futuresOrderFind';
import {
	checkContractRules,
	contractRules,
	percentOf,
	smallestPercent,
} from './futuresContractRules';

// A run reads the key's positions once (every contract: no symbol), and its closes of one contract
// take turns, each sized and checked against what the closes before it left: 200 closes cost one
// query request, not 200 at 5 a second. Closes of different contracts run side by side.

const holds = (symbol: string) => (entry: IDataObject) =>
	entry.symbol === symbol &&
	(entry.positionSide === undefined || entry.positionSide === 'LONG') &&
	/[1-9]/.test(String(entry.baseQty ?? ''));

/** Every position of the key: read once per run (try), shared by every item. */
function runPositions(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return run.shared('futures positions', async () => {
		const list = await run.client.request(FUTURES_ENDPOINTS.positions, { itemIndex });
		return list as IDataObject[];
	});
}

/**
 * Null when unreadable. The futures API gives the mark price with an open position only: without
 * one, a BUY that must be valued at it is refused by Max Order Notional.
 */
export async function readMark(
	run: RunContext,
	symbol: string,
	itemIndex: number,
): Promise<string | null> {
	try {
		const mark = (await runPositions(run, itemIndex)).find(holds(symbol))?.markPrice;
		return typeof mark === 'string' && /[1-9]/.test(mark) ? mark : null;
	} catch {
		return null;
	}
}

/** What a run knows of one contract's LONG position. */
interface Turns {
	/** Ends when the last close that asked has ended: the next one's turn. */
	last: Promise<void>;
	/** The position as this run's closes left it (null: none); undefined: not read yet. */
	left?: IDataObject | null;
	/** Whether a close may have changed it unseen: read again (this contract alone) before the next. */
	readAgain: boolean;
}

const turnsOfRun = new WeakMap<RunContext, Map<string, Turns>>();

export interface CloseTurn {
	/** The LONG position (undefined: none) as the run's earlier closes of the contract left it. */
	position(): Promise<IDataObject | undefined>;
	/** Said before anything is sent: a failure from then on leaves the position unknown. */
	sending(): void;
}

async function positionNow(
	run: RunContext,
	turns: Turns,
	symbol: string,
	itemIndex: number,
): Promise<IDataObject | undefined> {
	if (turns.left === undefined) {
		const list = turns.readAgain
			? ((await run.client.request(FUTURES_ENDPOINTS.positions, {
					qs: { symbol },
					itemIndex,
				})) as IDataObject[])
			: await runPositions(run, itemIndex);
		turns.left = list.find(holds(symbol)) ?? null;
		turns.readAgain = false;
	}
	return turns.left ?? undefined;
}

/** The position less a close placed in this run; null when nothing is left. */
function lessClosed(position: IDataObject, closed: string): IDataObject | null {
	const left = subtractDecimals(parseDecimal(String(position.baseQty))!, parseDecimal(closed)!);
	return left.units > 0n ? { ...position, baseQty: formatDecimal(left) } : null;
}

/**
 * Runs `close` once the run's earlier closes of `symbol` have ended. `closedBy` says what it did:
 * the quantity it sent and saw placed ('0': it changed nothing); undefined when that is not known
 * for sure (unknown, refused by the exchange, settled from an earlier try or another execution):
 * the next close of the contract reads the position again instead of guessing.
 */
export async function closeInTurn<T>(
	run: RunContext,
	symbol: string,
	itemIndex: number,
	close: (turn: CloseTurn) => Promise<T>,
	closedBy: (result: T) => string | undefined,
): Promise<T> {
	const byContract = turnsOfRun.get(run) ?? new Map<string, Turns>();
	turnsOfRun.set(run, byContract);
	const turns = byContract.get(symbol) ?? { last: Promise.resolve(), readAgain: false };
	byContract.set(symbol, turns);
	const before = turns.last;
	let end = () => {};
	turns.last = new Promise<void>((resolve) => (end = resolve));
	await before;
	let sent = false;
	let ended = false;
	let seen: IDataObject | undefined;
	const forget = () => {
		turns.left = undefined;
		turns.readAgain = true;
	};
	try {
		const result = await close({
			position: async () => (seen = await positionNow(run, turns, symbol, itemIndex)),
			sending: () => (sent = true),
		});
		ended = true;
		const closed = closedBy(result);
		if (closed !== undefined && !/[1-9]/.test(closed)) return result;
		if (closed === undefined || seen === undefined) forget();
		else turns.left = lessClosed(seen, closed);
		return result;
	} finally {
		// Refused before sending, the position is as it was; failed after, it is read again.
		if (!ended && sent) forget();
		end();
	}
}

/**
 * What a close took off the position in this run: its size when sent now and placed ('0': nothing
 * to close, nothing sent); undefined when settled from an earlier try (sent without a size), found
 * under its business key, or not placed.
 */
export function closedNow(settled: Settled | undefined, size?: string): string | undefined {
	if (settled?.outcome === 'rejected' && settled.refusal.detail?.nothingToClose === true)
		return '0';
	if (settled?.outcome !== 'placed' || settled.via === 'ledger' || settled.alreadyPlaced)
		return undefined;
	return settled.sharedWith === undefined ? size : undefined;
}

export async function sizeToClose(
	run: RunContext,
	request: { symbol: string; closeAmount: string; quantity?: string; percent?: string },
	size: string,
	itemIndex: number,
): Promise<string> {
	if (request.closeAmount === 'all') return size;
	const contracts = await run
		.shared('futures contracts', () => readContracts(run.client, itemIndex))
		.catch(() => undefined);
	const found = contracts?.find((one) => one.symbol === request.symbol);
	const rules = found === undefined ? undefined : contractRules(found);
	if (request.closeAmount === 'base') {
		if (decimalAbove(request.quantity!, size))
			throw inputError(
				run.node,
				'Quantity',
				`${request.quantity} is more than the position holds, ${size}`,
				`Nothing was sent. Give at most ${size}, or choose The Whole Position under Close.`,
				itemIndex,
			);
		const check =
			rules === undefined
				? undefined
				: checkContractRules(
						{ symbol: request.symbol, side: 'SELL', type: 'MARKET', baseQty: request.quantity },
						rules,
						false,
					);
		if (check !== undefined && !check.ok && check.field === 'baseQty')
			throw inputError(run.node, 'Quantity', check.problem, check.fix, itemIndex);
		return request.quantity!;
	}
	if (rules === undefined)
		throw inputError(
			run.node,
			'Percent',
			'cannot be turned into a quantity: the contract’s step size could not be read',
			'Nothing was sent. Run it again later, or give the quantity in the base coin.',
			itemIndex,
		);
	const quantity = percentOf(size, request.percent!, rules.stepSize);
	const min = rules.marketOrderMinQty || rules.minQty;
	const zero = !/[1-9]/.test(quantity);
	if (zero || (/[1-9]/.test(min) && decimalAbove(min, quantity))) {
		const least = smallestPercent(size, /[1-9]/.test(min) ? min : rules.stepSize);
		throw inputError(
			run.node,
			'Percent',
			zero
				? `${request.percent}% of the position (${size}) rounds down to 0 on the step size ${rules.stepSize}`
				: `${request.percent}% of the position (${size}) is ${quantity}, below the contract’s minimum market order quantity ${min}`,
			decimalAbove('100', least)
				? `Nothing was sent. Give at least ${least} (percent), or close The Whole Position.`
				: 'Nothing was sent. Close The Whole Position instead.',
			itemIndex,
		);
	}
	return quantity;
}

/**
 * The position before a close, once the key is known to have a futures account (else "nothing to
 * close" would be a lie). After a lost run the close may already be done: a read that fails then
 * proves nothing, so the close is unknown, not "nothing was executed".
 */
export async function readBeforeClose(
	run: RunContext,
	session: EngineSession,
	itemIndex: number,
	turn: CloseTurn,
): Promise<IDataObject | undefined> {
	try {
		await requireOwnFuturesAccount(run, 'Close Position', itemIndex);
		return await turn.position();
	} catch (error) {
		const failed = toNodeError(session.node, error);
		const { lostRun } = session;
		if (lostRun === undefined || failed instanceof NodeOperationError || outcomeOf(failed))
			throw failed;
		failed.description =
			`${lostRunText(lostRun)}, and it may have closed this position; reading it failed, so nothing was sent this time. ${failed.description ?? ''}`.trim();
		throw withOutcome(failed, 'unknown');
	}
}
