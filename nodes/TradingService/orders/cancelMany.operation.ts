import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import {
	accountOption,
	optionsCollection,
	parallelRequestsOption,
	sideFilter,
} from '../descriptions/common';
import { orderIdList } from './orderIds';
import { oneOf, symbol as symbolValue } from '../helpers/validation';
import { cancelItem, stopOnFirstRefusal } from './cancelItems';
import { cancelKind, pendingCancel } from './cancelWrites';
import { settleWrites } from '../writes/engine';
import type { RunContext } from '../run/runContext';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { cancelBySymbol } from './cancelBySymbol';

import { writeRun } from '../writes/writeRun';

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
	const cancelBy = oneOf(
		node,
		'Cancel By',
		run.parameter('cancelBy', itemIndex, 'symbol'),
		['symbol', 'ids'] as const,
		itemIndex,
	);
	if (cancelBy === 'symbol') {
		const symbol = symbolValue(node, 'Symbol', run.parameter('symbol', itemIndex, ''), itemIndex);
		const { side = 'BOTH' } = run.options(itemIndex, (options) => options as { side?: string });
		oneOf(node, 'Side', side, ['BOTH', 'BUY', 'SELL'] as const, itemIndex);
		const { accountId } = await run.account(itemIndex);
		// Items naming the same symbol, side and account share one cancel: the first to get here
		// lists and cancels, the others report what it cancelled (never "already cancelled").
		const shared = await run.shared(`cancelBySymbol ${accountId} ${symbol} ${side}`, async () => ({
			firstItem: itemIndex,
			items: await cancelBySymbol(
				run,
				{ symbol, side: side === 'BOTH' ? undefined : side, accountId },
				itemIndex,
			),
		}));
		if (shared.firstItem === itemIndex) return shared.items;
		return shared.items.map((item) => ({ ...item, sameCancelAsItem: shared.firstItem }));
	}
	const ids = orderIdList(node, 'Order IDs', run.parameter('orderIds', itemIndex, ''), itemIndex);
	return await cancelByIds(run, ids, itemIndex);
}

/**
 * DELETE /api/v1/spot/cancelOrderByIds, 100 IDs per request, settled by the write engine with the
 * ledger: a re-run of the node answers the IDs it cancelled from the ledger and sends none of them
 * again. How an answer is read, and an unknown one looked up ID by ID: cancelWrites.ts and
 * cancelLookups.ts. The first request's refusal is the node's error (nothing was cancelled).
 */
async function cancelByIds(
	run: RunContext,
	ids: string[],
	itemIndex: number,
): Promise<IDataObject[]> {
	const writes = writeRun(run);
	const pending = ids.map((orderId, position) =>
		pendingCancel(writes.ledger, `${itemIndex}.${position}`, { orderId }, itemIndex),
	);
	await settleWrites(writes, cancelKind(writes, 'byIds'), pending, {
		afterRequest: stopOnFirstRefusal(() => pending),
	});
	return pending.map(cancelItem);
}
