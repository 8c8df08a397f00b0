import { sleep, updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { optionsCollection, parallelRequestsOption } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { inputError, oneOf } from '../helpers/validation';
import { orderIdList } from '../orders/orderIds';
import type { RunContext } from '../run/runContext';
import { settleWrites } from '../writes/engine';
import type { NodeError } from '../writes/engine';
import { outcomeOf, withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { contractField, readContracts, requiredContract, unknownContractError } from './contracts';
import { readBeforeCancelFailed } from './futuresCancelLookups';
import { cancelSequence, type SequenceEnd } from './futuresCancelPages';
import { futuresCancelItem, futuresCancelKind, pendingFuturesCancel } from './futuresCancelWrites';
import { readFuturesGuardrails } from './futuresGuardrails';
import {
	futuresOrderType,
	listAllOpenFuturesOrders,
	requireOwnFuturesAccount,
} from './futuresOrderFind';
import { contractGuardrails } from './positionWrites';

const properties = (version: NodeVersion): INodeProperties[] => [
	{
		displayName: 'Cancel By',
		name: 'cancelBy',
		type: 'options',
		default: 'contract',
		options: [
			{
				name: 'Contract',
				value: 'contract',
				description: 'Every open order of one contract: both sides, limit and stop orders',
			},
			{
				name: 'All Contracts',
				value: 'all',
				description:
					'Every open futures order of the account: both sides, limit and stop orders (under Allowed Contracts: of each allowed contract)',
			},
			{ name: 'Order IDs', value: 'ids', description: 'The orders in a list of order IDs' },
		],
		description: 'Which open futures orders to cancel',
	},
	{
		...contractField(version, 'whose open orders to cancel'),
		displayOptions: { show: { cancelBy: ['contract'] } },
	},
	{
		displayName: 'Order IDs',
		name: 'orderIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 2131349653745568000, 2131349653745568001',
		description:
			'Order IDs to cancel (the orderId field of futures orders), separated by commas or new lines, or a list from an expression. Each order’s type is found by the node; one output item per ID.',
		typeOptions: { rows: 4 },
		displayOptions: { show: { cancelBy: ['ids'] } },
	},
	contractGuardrails(false),
	optionsCollection(parallelRequestsOption(version, 'item')),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['futures'], operation: ['cancelManyOrders'] } },
		properties(version),
	);

/** The four request sequences: the exchange cancels one side and one type per request. */
const SEQUENCES = [
	{ side: 'BUY', type: 'LIMIT' },
	{ side: 'SELL', type: 'LIMIT' },
	{ side: 'BUY', type: 'STOP' },
	{ side: 'SELL', type: 'STOP' },
] as const;

/** How long a cancel the exchange answered may take to leave the open-orders list. */
const CONFIRM_WAIT_MS = 3000;
const CONFIRM_POLL_MS = 250;

const sequenceKey = (order: IDataObject) =>
	`${String(order.side)} ${futuresOrderType(order) ?? ''}`;

async function openOrders(run: RunContext, symbol: string | undefined, itemIndex: number) {
	const { orders } = await listAllOpenFuturesOrders(run, { symbol, itemIndex });
	return new Map(orders.map((order) => [String(order.orderId), order]));
}

function summaryItem(
	end: SequenceEnd,
	before: Map<string, IDataObject>,
	after: Map<string, IDataObject> | undefined,
): IDataObject {
	const { symbol, side, type } = end.page;
	const key = `${side} ${type}`;
	const listed = [...before.values()].filter((order) => sequenceKey(order) === key);
	const left = after && [...after.values()].filter((order) => sequenceKey(order) === key);
	const item: IDataObject = {
		symbol: symbol ?? 'all',
		side,
		orderType: type,
		outcome: end.outcome,
		openBefore: listed.length,
		// Listed open before and not open after: cancelled by this sequence, or filled meanwhile.
		closedDuringRun: after
			? listed.filter((order) => !after.has(String(order.orderId))).length
			: null,
		stillOpen: left ? left.length : null,
		requests: end.pages,
		...(end.replayed ? { replayed: true } : {}),
		...(end.settledByList ? { confirmedByList: true } : {}),
		...(end.alreadyPlaced ? { alreadyPlaced: true } : {}),
	};
	if (left && left.length > 0) item.stillOpenOrderIds = left.map((order) => String(order.orderId));
	if (end.error !== undefined) {
		item.message = end.error.message;
		if (end.error.description) item.description = end.error.description;
	}
	if (!after) item.notConfirmed = 'the open orders could not be listed after the cancels';
	return item;
}

async function cancelAllOf(
	run: RunContext,
	symbol: string | undefined,
	itemIndex: number,
): Promise<IDataObject[]> {
	const writes = writeSessionOf(run);
	const before = await openOrders(run, symbol, itemIndex).catch((error: unknown) => {
		throw readBeforeCancelFailed(writes, error, 'listing the open orders');
	});
	const ends = await Promise.all(
		SEQUENCES.map(({ side, type }) =>
			cancelSequence(
				writes,
				{ ...(symbol ? { symbol } : {}), side, type },
				`${itemIndex}.${symbol ?? 'all'}.${side}.${type}`,
				itemIndex,
			),
		),
	);
	// The first request of every sequence refused as a whole: nothing was cancelled, an error.
	const refused = ends[0].error;
	if (refused !== undefined && ends.every((end) => end.refusedAtFirst && end.error))
		throw withOutcome(refused, 'rejected');
	let after: Map<string, IDataObject> | undefined;
	const waitUntil = Date.now() + CONFIRM_WAIT_MS;
	for (;;) {
		after = await openOrders(run, symbol, itemIndex).catch(() => undefined);
		const waiting =
			after !== undefined &&
			ends.some(
				(end) =>
					end.outcome === 'placed' &&
					[...before.keys()].some(
						(id) =>
							after!.has(id) &&
							sequenceKey(after!.get(id)!) === `${end.page.side} ${end.page.type}`,
					),
			);
		if (!waiting || Date.now() >= waitUntil) break;
		await sleep(CONFIRM_POLL_MS);
	}
	return ends.map((end) => summaryItem(end, before, after));
}

async function cancelByIds(
	run: RunContext,
	ids: string[],
	allowed: string[] | undefined,
	itemIndex: number,
) {
	const writes = writeSessionOf(run);
	const pending = ids.map((orderId, position) =>
		pendingFuturesCancel(
			writes.ledger,
			`${itemIndex}.${position}`,
			{ orderId },
			undefined,
			itemIndex,
		),
	);
	await settleWrites(writes, futuresCancelKind(writes, allowed), pending, { parallel: 10 });
	return pending.map(futuresCancelItem);
}

async function checkListed(run: RunContext, allowed: string[], itemIndex: number) {
	const listed = new Set((await readContracts(run.client, itemIndex)).map((c) => c.symbol));
	const unknown = allowed.filter((symbol) => !listed.has(symbol));
	if (unknown.length > 0)
		throw inputError(
			run.node,
			'Allowed Contracts',
			`the exchange does not list ${unknown.join(', ')}`,
			'Nothing was cancelled. Remove it from Allowed Contracts in the node’s Guardrails, or correct its name as the exchange lists it, e.g. BTCUSDT-PERPETUAL.',
			itemIndex,
		);
}

/** The item of a contract whose cancels failed after another contract's were sent. */
function scopeFailedItem(symbol: string, error: NodeError): IDataObject {
	return {
		symbol,
		outcome: outcomeOf(error) ?? 'unknown',
		message: error.message,
		...(error.description ? { description: error.description } : {}),
	};
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const by = run.parameter('cancelBy', itemIndex, 'contract');
	const cancelBy = oneOf(node, 'Cancel By', by, ['contract', 'all', 'ids'] as const, itemIndex);
	const ids =
		cancelBy === 'ids'
			? orderIdList(node, 'Order IDs', run.parameter('orderIds', itemIndex, ''), itemIndex)
			: [];
	const symbol = cancelBy === 'contract' ? requiredContract(run, itemIndex) : undefined;
	const { allowedContracts: allowed } = readFuturesGuardrails(run, itemIndex);
	if (symbol !== undefined && allowed !== undefined && !allowed.includes(symbol))
		throw inputError(
			node,
			'Symbol',
			`${symbol} is not in Allowed Contracts (${allowed.join(', ')})`,
			'The node’s Allowed Contracts guardrail refuses this cancel; nothing was sent. Pick an allowed contract, or change Allowed Contracts in the node’s Guardrails.',
			itemIndex,
		);
	await requireOwnFuturesAccount(run, 'Cancel Many Orders', itemIndex).catch((error: unknown) => {
		throw readBeforeCancelFailed(writeSessionOf(run), error, 'reading the key’s accounts');
	});
	if (cancelBy === 'ids') return await cancelByIds(run, ids, allowed, itemIndex);
	// All Contracts under Allowed Contracts: each allowed contract's orders, never another's.
	const scopes = symbol !== undefined ? [symbol] : (allowed ?? [undefined]);
	if (symbol === undefined && allowed !== undefined) await checkListed(run, allowed, itemIndex);
	const items: IDataObject[] = [];
	for (const scope of scopes) {
		try {
			items.push(...(await cancelAllOf(run, scope, itemIndex)));
		} catch (error) {
			const failed = unknownContractError(error, 'Symbol', () => symbol) as NodeError;
			if (items.length === 0) throw failed;
			// Cancels of earlier contracts went out: their items are kept, this one says what failed.
			items.push(scopeFailedItem(scope!, failed));
		}
	}
	return items;
}
