import { sleep, updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { CANCEL_PENDING_STATUS, LIMITS } from '../constants';
import {
	accountOption,
	optionsCollection,
	parallelRequestsOption,
	sideFilter,
} from '../descriptions/common';
import { orderIdList } from './orderIds';
import { inScope } from '../helpers/accountScope';
import { oneOf, symbol as symbolValue } from '../helpers/validation';
import {
	cancelItem,
	cancelKind,
	pendingCancel,
	stopOnFirstRefusal,
	type PendingCancel,
} from './cancelWrites';
import { settleWrites } from '../writes/engine';
import { fingerprint } from '../writes/ledger';
import type { RunContext } from '../run/runContext';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { writeSessionOf } from '../writes/writeSession';
import { ORDER_ENDPOINTS } from './endpoints';

const properties = (version: NodeVersion): INodeProperties[] => [
	{
		displayName: 'Cancel By',
		name: 'cancelBy',
		type: 'options',
		default: 'symbol',
		options: [
			{
				name: 'Symbol',
				value: 'symbol',
				description:
					'Cancel every open order of one trading pair: the node lists them, cancels each, and confirms',
			},
			{ name: 'Order IDs', value: 'ids', description: 'Cancel the orders in a list of order IDs' },
		],
		description:
			'Whether to cancel all open orders of a symbol, or the orders of a list of order IDs',
	},
	pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: 'Trading pair whose open orders to cancel, upper case without separator',
		displayOptions: { show: { cancelBy: ['symbol'] } },
	}),
	{
		displayName: 'Order IDs',
		name: 'orderIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000123, 1470000000000000124',
		description:
			'Order IDs to cancel (the orderId field of orders), separated by commas or new lines, or a list from an expression. Sent 100 per request; one output item per ID.',
		...(version === 2 ? { typeOptions: { rows: 4 } } : {}),
		displayOptions: { show: { cancelBy: ['ids'] } },
	},
	{
		...optionsCollection([
			...parallelRequestsOption(version, 'item'),
			...accountOption(version, 'whose open orders to cancel'),
			sideFilter('Cancel only the buy orders or only the sell orders of the symbol'),
		]),
		displayOptions: { show: { cancelBy: ['symbol'] } },
	},
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['order'], operation: ['cancelMany'] } },
		properties(version),
	);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const by = run.parameter('cancelBy', itemIndex, 'symbol');
	const cancelBy = oneOf(node, 'Cancel By', by, ['symbol', 'ids'] as const, itemIndex);
	if (cancelBy === 'symbol') {
		const symbol = symbolValue(node, 'Symbol', run.parameter('symbol', itemIndex, ''), itemIndex);
		const { side = 'BOTH' } = run.options(itemIndex, (options) => options as { side?: string });
		oneOf(node, 'Side', side, ['BOTH', 'BUY', 'SELL'] as const, itemIndex);
		const { accountId } = await run.account(itemIndex);
		// Items naming the same symbol, side and account share one cancel: the first to get here
		// lists and cancels, the others report what it cancelled (never "already cancelled").
		const what = { symbol, side: side === 'BOTH' ? undefined : side, accountId };
		const shared = await run.shared(`cancelBySymbol ${accountId} ${symbol} ${side}`, async () => ({
			firstItem: itemIndex,
			items: await cancelBySymbol(run, what, itemIndex),
		}));
		if (shared.firstItem === itemIndex) return shared.items;
		return shared.items.map((item) => ({ ...item, sameCancelAsItem: shared.firstItem }));
	}
	const ids = orderIdList(node, 'Order IDs', run.parameter('orderIds', itemIndex, ''), itemIndex);
	return await cancelByIds(run, ids, itemIndex);
}

/** Cancels by IDs, 100 a request: the first request's refusal is the node's error. */
async function cancelByIds(
	run: RunContext,
	ids: string[],
	itemIndex: number,
): Promise<IDataObject[]> {
	const writes = writeSessionOf(run);
	const pending = ids.map((orderId, position) =>
		pendingCancel(writes.ledger, `${itemIndex}.${position}`, { orderId }, itemIndex),
	);
	await settleWrites(writes, cancelKind(writes, 'byIds'), pending, {
		afterRequest: stopOnFirstRefusal(() => pending),
	});
	return pending.map(cancelItem);
}

// Cancel Many by symbol (docs/safety.md): a cancel-all answer proves nothing about any one order,
// so the node lists the symbol's open orders, cancels exactly those by ID through the write engine,
// and lists again to confirm; each order gets an item with its own outcome.

/** Rounds of list-and-cancel: orders placed while the node cancels are caught by the next one. */
const MAX_ROUNDS = 5;
/** How long a cancel the exchange accepted may take to leave the open-orders list. */
const CONFIRM_WAIT_MS = 3000;
const CONFIRM_POLL_MS = 250;

/** What one Cancel Many by symbol cancels: one symbol's open orders of one account, of one side or both. */
type SymbolCancel = { symbol: string; side: string | undefined; accountId: string };

async function listOpen(
	run: RunContext,
	{ symbol, side, accountId }: SymbolCancel,
	itemIndex: number,
): Promise<Map<string, IDataObject>> {
	const ofSide = side === undefined ? {} : { side };
	const orders = (await run.client.request(ORDER_ENDPOINTS.openOrders, {
		qs: { symbol, ...ofSide, accountId, limit: LIMITS.ordersPageSize },
		itemIndex,
	})) as IDataObject[];
	const open = new Map<string, IDataObject>();
	for (const order of orders) {
		// The list may hold other symbols', sides' or accounts' orders only if the service ignored a
		// filter: never cancel those.
		if (order.symbol !== symbol || (side !== undefined && order.side !== side)) continue;
		if (!inScope({ accountId, shared: true }, order)) continue;
		open.set(String(order.orderId), order);
	}
	return open;
}

function orderIdOf(pending: PendingCancel): string {
	return 'orderId' in pending.write.reference ? pending.write.reference.orderId : '';
}

/** Whether a listed order still waits for a cancel that was answered as done. */
function stillOpenAfterCancel(pending: PendingCancel, listed: IDataObject | undefined): boolean {
	return (
		pending.settled?.outcome === 'placed' &&
		listed !== undefined &&
		listed.status !== CANCEL_PENDING_STATUS
	);
}

/** The open orders listed again once the cancels were answered, giving accepted ones time to show. */
async function listAfterCancels(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
	targets: Map<string, PendingCancel>,
): Promise<Map<string, IDataObject>> {
	let open = await listOpen(run, what, itemIndex);
	// A cancel is applied a moment after its answer: give accepted cancels time to show.
	const waitUntil = Date.now() + CONFIRM_WAIT_MS;
	const waiting = () =>
		[...targets.values()].some((one) => stillOpenAfterCancel(one, open.get(orderIdOf(one))));
	while (waiting() && Date.now() < waitUntil) {
		await sleep(CONFIRM_POLL_MS);
		open = await listOpen(run, what, itemIndex);
	}
	return open;
}

interface Rounds {
	targets: Map<string, PendingCancel>;
	open: Map<string, IDataObject>;
	rounds: number;
	/** Why the last list, which confirms the cancels, could not be read. */
	unconfirmed?: string;
}

/**
 * Lists, cancels and lists again until no new order is open, at most MAX_ROUNDS times. The ledger
 * keeps it under the symbol, side and account, not an item: items naming the same share one cancel
 * (cancelMany.operation.ts), and whichever item starts it, a later try finds it.
 */
async function cancelInRounds(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
): Promise<Rounds> {
	const { symbol, side, accountId } = what;
	const slotName = `symbol ${accountId} ${symbol} ${side ?? 'BOTH'}`;
	// The orders an earlier try of this node run targeted: reported again, and looked up or
	// answered from the ledger, never cancelled twice.
	const writes = writeSessionOf(run);
	const targetsSlot = writes.ledger.slot(slotName, fingerprint('cancelBySymbol', { symbol, side }));
	const earlier = String(targetsSlot.recorded?.result?.orderIds ?? '')
		.split(',')
		.filter((id) => id !== '');
	const targets = new Map<string, PendingCancel>();
	const target = (orderId: string) => {
		const pending = pendingCancel(writes.ledger, `${slotName}.${orderId}`, { orderId }, itemIndex);
		targets.set(orderId, pending);
		return pending;
	};
	let open = await listOpen(run, what, itemIndex);
	const kind = cancelKind(writes, 'listedOpen');
	const afterRequest = stopOnFirstRefusal(() => targets.values());
	let round = 0;
	for (; round < MAX_ROUNDS; round++) {
		const fresh = [
			...(round === 0 ? earlier.filter((orderId) => !targets.has(orderId)) : []),
			...[...open.keys()].filter((orderId) => !targets.has(orderId) && !earlier.includes(orderId)),
		].map(target);
		if (fresh.length === 0) break;
		targetsSlot.record({ outcome: 'unknown', result: { orderIds: [...targets.keys()].join(',') } });
		await settleWrites(writes, kind, fresh, { afterRequest });
		try {
			open = await listAfterCancels(run, what, itemIndex, targets);
		} catch (error) {
			// Cancels were sent: their answers stand, each order's item says what is known of it.
			const unconfirmed = `listing the open ${symbol} orders to confirm failed: ${(error as Error).message}`;
			return { targets, open: new Map(), rounds: round, unconfirmed };
		}
	}
	return { targets, open, rounds: round };
}

/** The item of an order a round targeted, as its cancel settled and the last list shows it. */
function targetItem(
	pending: PendingCancel,
	listed: IDataObject | undefined,
	symbol: string,
	unconfirmed: string | undefined,
): IDataObject {
	const orderId = orderIdOf(pending);
	if (stillOpenAfterCancel(pending, listed)) {
		return {
			orderId,
			symbol,
			outcome: 'unknown',
			cancelled: null,
			status: listed?.status,
			message: `Unknown outcome: the exchange answered that order ${orderId} was cancelled, but it was still listed as open ${CONFIRM_WAIT_MS / 1000} s later`,
			howToCheck: `Look up order ID ${orderId} (Trading Service > Order > Get) and check its status`,
		};
	}
	const item = cancelItem(pending);
	if (item.outcome === 'placed' && listed?.status === CANCEL_PENDING_STATUS)
		item.status = CANCEL_PENDING_STATUS;
	// Without the confirming list the cancel's own answer is all there is: say so.
	if (unconfirmed !== undefined) item.notConfirmed = unconfirmed;
	return { ...item, symbol };
}

/** Cancels the open orders `what` names: an item per order, or one saying there were none. */
async function cancelBySymbol(
	run: RunContext,
	what: SymbolCancel,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { symbol, side } = what;
	const { targets, open, rounds, unconfirmed } = await cancelInRounds(run, what, itemIndex);
	if (targets.size === 0 && open.size === 0) {
		const message = `No open ${symbol} orders: nothing to cancel`;
		return [{ symbol, ...(side === undefined ? {} : { side }), openOrders: 0, message }];
	}
	const items = [...targets.values()].map((pending) =>
		targetItem(pending, open.get(orderIdOf(pending)), symbol, unconfirmed),
	);
	// Orders placed after the last round: not cancelled, and said so.
	for (const [orderId, order] of open) {
		if (targets.has(orderId)) continue;
		items.push({
			orderId,
			symbol,
			outcome: 'rejected',
			cancelled: false,
			reason: 'stillOpen',
			status: order.status,
			message: `Not cancelled: order ${orderId} was placed while the node was cancelling, after ${rounds} rounds. Run the node again to cancel it.`,
		});
	}
	return items;
}
