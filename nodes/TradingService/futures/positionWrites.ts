import { sleep, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import { compareDecimals, parseDecimal } from '../helpers/decimals';
import { isServiceRejection } from '../transport';
import type { EngineSession, PendingWrite, Refusal, Verdict, WriteKind } from '../writes/engine';
import { lostRunText } from '../writes/writeSession';
import { FUTURES_ENDPOINTS } from './endpoints';

// Both position writes replace a setting, so the same request twice leaves the same state: a lost
// answer is settled by reading the setting back; still not there once no attempt can be applied,
// it is sent once more. After a lost run the setting is read back before sending (the lost run may
// have set it), and a refusal of the re-send is read back too: what the lost run did decides.

export interface LeverageWrite {
	symbol: string;
	leverage: number;
}

export type TriggerBy = 'CONTRACT_PRICE' | 'MARK_PRICE';

export interface TpSlWrite {
	symbol: string;
	takeProfit?: string;
	tpTriggerBy?: TriggerBy;
	stopLoss?: string;
	slTriggerBy?: TriggerBy;
}

/** The Guardrails collection of a cancel or position write: the order writes' guardrails that apply. */
export function contractGuardrails(withMaxLeverage: boolean): INodeProperties {
	const allowed: INodeProperties = {
		displayName: 'Allowed Contracts',
		name: 'allowedContracts',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT-PERPETUAL, ETHUSDT-PERPETUAL',
		description:
			'The only contracts this node may act on, separated by commas: a change or cancel of any other is refused before anything is sent. Empty: any contract.',
	};
	const maxLeverage: INodeProperties = {
		displayName: 'Max Leverage',
		name: 'maxLeverage',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 20, numberPrecision: 0 },
		default: 20,
		description:
			'The highest leverage this node may set. A higher one is refused before anything is sent.',
	};
	return {
		displayName: 'Guardrails',
		name: 'guardrails',
		type: 'collection',
		placeholder: 'Add Guardrail',
		default: {},
		description: 'Limits that refuse the change before anything is sent',
		options: withMaxLeverage ? [allowed, maxLeverage] : [allowed],
	};
}

/** Read back, until no attempt can be applied any more: `holds` says whether the setting is there. */
async function readBack(
	pending: PendingWrite<unknown>,
	read: () => Promise<boolean | undefined>,
	what: string,
): Promise<Verdict> {
	for (;;) {
		const readAt = Date.now();
		let holds: boolean | undefined;
		try {
			holds = await read();
		} catch (error) {
			return {
				kind: 'unknown',
				reason: `reading the ${what} back failed: ${(error as Error).message}`,
				failed: true,
			};
		}
		if (holds === true) return { kind: 'placed', result: {} };
		if (holds === undefined)
			return { kind: 'unknown', reason: `the ${what} could not be read back` };
		const acceptableUntil =
			pending.window.acceptableUntil ?? readAt + LIMITS.maxRecvWindowMs + LIMITS.futureToleranceMs;
		if (readAt >= acceptableUntil) return { kind: 'notDone' };
		await sleep(acceptableUntil - readAt);
	}
}

/** A price as sent; not sent (`b` undefined): the leg the request removes, so it must read "". */
const sameDecimal = (a: unknown, b: string | undefined) => {
	if (b === undefined) return a === '';
	const [x, y] = [parseDecimal(String(a ?? '')), parseDecimal(b)];
	return x !== undefined && y !== undefined && compareDecimals(x, y) === 0;
};

/** After a lost run: the setting already there is placed (alreadyPlaced), not sent; else sent. */
async function holdsAfterLostRun<W>(
	session: EngineSession,
	pending: Array<PendingWrite<W>>,
	holds: (pending: PendingWrite<W>) => Promise<boolean | undefined>,
): Promise<Array<Verdict | undefined>> {
	const lostRun = session.lostRun;
	if (lostRun === undefined) return pending.map(() => undefined);
	// A retry may start while the crashed run's request can still be applied: read after that.
	if (Date.now() < lostRun.settledFrom) await sleep(lostRun.settledFrom - Date.now());
	return await Promise.all(
		pending.map(async (one): Promise<Verdict | undefined> => {
			// Unreadable: sent (setting it twice is harmless); a refusal is then read back again.
			const held = await holds(one).catch(() => undefined);
			return held === true
				? { kind: 'placed', result: { ...one.write, readBack: true }, alreadyPlaced: true }
				: undefined;
		}),
	);
}

/**
 * A refusal of a send that follows a lost run: the lost run may have set the value, so the refusal
 * alone does not say "nothing was executed". Read back once: there, placed; not there, rejected.
 */
async function refusedAfterLostRun<W>(
	session: EngineSession,
	pending: PendingWrite<W>,
	said: Refusal,
	holds: (pending: PendingWrite<W>) => Promise<boolean | undefined>,
	setting: string,
): Promise<Verdict> {
	const refusedAs = said.error?.message ?? `code ${said.code ?? ''}`;
	const lost =
		session.lostRun === undefined ? 'an earlier run may have set it' : lostRunText(session.lostRun);
	let held: boolean | undefined;
	let failed: string | undefined;
	try {
		held = await holds(pending);
	} catch (error) {
		failed = (error as Error).message;
	}
	if (held === true)
		return { kind: 'placed', result: { ...pending.write, readBack: true }, alreadyPlaced: true };
	if (held === false) return { kind: 'rejected', refusal: said };
	const why = failed === undefined ? 'could not be read back' : `could not be read back: ${failed}`;
	return {
		kind: 'unknown',
		reason: `${lost}; sending it again was refused (${refusedAs}), and the ${setting} ${why}`,
	};
}

function settingKind<W extends { symbol: string }>(
	session: EngineSession,
	parts: {
		what: (write: W) => string;
		howToCheck: (write: W) => string;
		request: WriteKind<W>['request'];
		answered: (body: IDataObject, write: W) => boolean;
		holds: (pending: PendingWrite<W>) => Promise<boolean | undefined>;
		setting: string;
	},
): WriteKind<W> {
	return {
		wording: (write) => ({ what: parts.what(write), howToCheck: parts.howToCheck(write) }),
		whyNoLookup: () => undefined,
		unknownDetail: () =>
			`The node read the ${parts.setting} back and could not tell whether it was set`,
		stored: (result) => result,
		groups: (pending) => pending.map((one) => [one]),
		request: parts.request,
		read: (body, [{ write }]) =>
			parts.answered(body as IDataObject, write)
				? [{ kind: 'placed', result: body as IDataObject }]
				: [
						{
							kind: 'unknown',
							reason: `the answer does not show the ${parts.setting} sent: ${JSON.stringify(body)}`,
						},
					],
		// After a lost run a refusal is read back (lookup's `said`): the lost run may have set it.
		refused: (error) =>
			session.lostRun !== undefined && isServiceRejection(error)
				? { kind: 'duplicate', refusal: { error } }
				: { kind: 'rejected', refusal: { error } },
		precheck: (pending) => holdsAfterLostRun(session, pending, parts.holds),
		lookup: async (pending, said) => {
			if (said !== undefined)
				return await refusedAfterLostRun(session, pending, said, parts.holds, parts.setting);
			const verdict = await readBack(pending, () => parts.holds(pending), parts.setting);
			// What the service holds now, as an answer would have said it.
			return verdict.kind === 'placed'
				? { ...verdict, result: { ...pending.write, readBack: true } }
				: verdict;
		},
	};
}

export function leverageKind(session: EngineSession): WriteKind<LeverageWrite> {
	return settingKind<LeverageWrite>(session, {
		setting: 'leverage',
		what: ({ symbol, leverage }) => `leverage ${leverage} for ${symbol}`,
		howToCheck: ({ symbol }) =>
			`Read the leverage of ${symbol} (Trading Service > Futures > Get Leverage)`,
		request: ([{ write, itemIndex }]) => ({
			endpoint: FUTURES_ENDPOINTS.setLeverage,
			request: { qs: { symbol: write.symbol, leverage: write.leverage }, itemIndex },
		}),
		answered: (body, { leverage }) => String(body.leverage) === String(leverage),
		holds: async ({ write, itemIndex }) => {
			const answer = (await session.client.request(FUTURES_ENDPOINTS.leverage, {
				qs: { symbol: write.symbol },
				itemIndex,
				urgent: true,
			})) as IDataObject[];
			const entry = answer.find((one) => (one.symbolId ?? one.symbol) === write.symbol);
			return entry === undefined ? undefined : String(entry.leverage) === String(write.leverage);
		},
	});
}

/** The query of a TP/SL write: only what is set, the side LONG (the only side the exchange has). */
export function tpSlQuery(write: TpSlWrite): IDataObject {
	const { symbol, takeProfit, tpTriggerBy, stopLoss, slTriggerBy } = write;
	return {
		symbol,
		side: 'LONG',
		...(takeProfit === undefined
			? {}
			: { takeProfit, tpTriggerBy: tpTriggerBy ?? 'CONTRACT_PRICE' }),
		...(stopLoss === undefined ? {} : { stopLoss, slTriggerBy: slTriggerBy ?? 'CONTRACT_PRICE' }),
	};
}

export function tpSlKind(session: EngineSession): WriteKind<TpSlWrite> {
	// Setting replaces both legs: a leg not sent is removed. Only the prices can be read back (the
	// trigger sources cannot be confirmed by them).
	const shows = (found: IDataObject, write: TpSlWrite) =>
		sameDecimal(found.takeProfit, write.takeProfit) && sameDecimal(found.stopLoss, write.stopLoss);
	return settingKind<TpSlWrite>(session, {
		setting: 'position’s TP/SL',
		what: ({ symbol }) => `TP/SL of the LONG ${symbol} position`,
		howToCheck: ({ symbol }) =>
			`Read the ${symbol} position (Trading Service > Futures > Get Positions) and check its takeProfit and stopLoss`,
		request: ([{ write, itemIndex }]) => ({
			endpoint: FUTURES_ENDPOINTS.tradingStop,
			request: { qs: tpSlQuery(write), itemIndex },
		}),
		answered: (body, write) => body.symbol === write.symbol && shows(body, write),
		holds: async ({ write, itemIndex }) => {
			const positions = (await session.client.request(FUTURES_ENDPOINTS.positions, {
				qs: { symbol: write.symbol },
				itemIndex,
				urgent: true,
			})) as IDataObject[];
			const position = positions.find(
				(one) => one.symbol === write.symbol && (one.side ?? 'LONG') === 'LONG',
			);
			// No position any more: whether the TP/SL was set before it closed cannot be told.
			return position === undefined ? undefined : shows(position, write);
		},
	});
}
