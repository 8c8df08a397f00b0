import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { compareDecimals, parseDecimal } from '../helpers/decimals';
import { inputError, oneOf, positiveDecimal } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { isServiceRejection } from '../transport';
import { pendingWrite, settleWrites } from '../writes/engine';
import { fingerprint } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { contractField, requiredContract, unknownContractError } from './contracts';
import { readFuturesGuardrails } from './futuresGuardrails';
import {
	contractGuardrails,
	tpSlKind,
	tpSlQuery,
	type TpSlWrite,
	type TriggerBy,
} from './positionWrites';

const triggerBy = (name: string, what: string): INodeProperties => ({
	displayName: `${what} Trigger By`,
	name,
	type: 'options',
	default: 'CONTRACT_PRICE',
	options: [
		{
			name: 'Last Price',
			value: 'CONTRACT_PRICE',
			description: 'The contract’s last traded price',
		},
		{ name: 'Mark Price', value: 'MARK_PRICE', description: 'The contract’s mark price' },
	],
	description: `Which price triggers the ${what.toLowerCase()} when it reaches the trigger price`,
});

const properties = (version: NodeVersion): INodeProperties[] => [
	contractField(version, 'whose LONG position to protect'),
	{
		displayName: 'Take Profit Price',
		name: 'takeProfitPrice',
		type: 'string',
		default: '',
		placeholder: 'e.g. 72000',
		description:
			'The price at which the whole position is closed in profit. Empty: the position’s current take profit is removed (the exchange replaces both with what is sent). At least one of Take Profit Price and Stop Loss Price is needed.',
	},
	triggerBy('takeProfitTriggerBy', 'Take Profit'),
	{
		displayName: 'Stop Loss Price',
		name: 'stopLossPrice',
		type: 'string',
		default: '',
		placeholder: 'e.g. 58000',
		description:
			'The price at which the whole position is closed to limit the loss. Empty: the position’s current stop loss is removed (the exchange replaces both with what is sent).',
	},
	triggerBy('stopLossTriggerBy', 'Stop Loss'),
	contractGuardrails(false),
	...parallelRequestsOnly(version),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['futures'], operation: ['setPositionTpSl'] } },
		properties(version),
	);

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

function readTpSl(run: RunContext, itemIndex: number): TpSlWrite {
	const node = run.node;
	const symbol = requiredContract(run, itemIndex);
	const tp = run.parameter('takeProfitPrice', itemIndex, '');
	const sl = run.parameter('stopLossPrice', itemIndex, '');
	if (!given(tp) && !given(sl))
		throw inputError(
			node,
			'Take Profit Price',
			'is empty, and so is Stop Loss Price',
			'Give a Take Profit Price, a Stop Loss Price or both: they are the trigger prices that close the position.',
			itemIndex,
		);
	const write: TpSlWrite = { symbol };
	const choices = ['CONTRACT_PRICE', 'MARK_PRICE'] as const;
	if (given(tp)) {
		write.takeProfit = positiveDecimal(node, 'Take Profit Price', tp, itemIndex);
		const by = run.parameter('takeProfitTriggerBy', itemIndex, 'CONTRACT_PRICE');
		write.tpTriggerBy = oneOf(node, 'Take Profit Trigger By', by, choices, itemIndex) as TriggerBy;
	}
	if (given(sl)) {
		write.stopLoss = positiveDecimal(node, 'Stop Loss Price', sl, itemIndex);
		const by = run.parameter('stopLossTriggerBy', itemIndex, 'CONTRACT_PRICE');
		write.slTriggerBy = oneOf(node, 'Stop Loss Trigger By', by, choices, itemIndex) as TriggerBy;
	}
	// A LONG is closed in profit above, at a loss below: a take profit under the stop loss is a typo.
	if (
		write.takeProfit &&
		write.stopLoss &&
		compareDecimals(parseDecimal(write.takeProfit)!, parseDecimal(write.stopLoss)!) <= 0
	)
		throw inputError(
			node,
			'Take Profit Price',
			`${write.takeProfit} is not above Stop Loss Price ${write.stopLoss}`,
			'For a LONG position the take profit is above the stop loss: swap the two prices.',
			itemIndex,
		);
	return write;
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const write = readTpSl(run, itemIndex);
	const { allowedContracts } = readFuturesGuardrails(run, itemIndex);
	if (allowedContracts !== undefined && !allowedContracts.includes(write.symbol))
		throw inputError(
			node,
			'Symbol',
			`${write.symbol} is not in Allowed Contracts (${allowedContracts.join(', ')})`,
			'Nothing was sent. Pick an allowed contract, or change Allowed Contracts in the node’s Guardrails.',
			itemIndex,
		);
	const writes = writeSessionOf(run);
	const slot = writes.ledger.slot(
		String(itemIndex),
		fingerprint('futuresTpSl', tpSlQuery(write)),
		itemIndex,
	);
	const pending = pendingWrite(slot, write, itemIndex);
	await settleWrites(writes, tpSlKind(writes), [pending]);
	const settled = pending.settled!;
	if (settled.outcome === 'unknown') throw settled.error;
	if (settled.outcome === 'rejected') {
		const error = settled.refusal.error!;
		// -1149 "no LONG position": said with the field and the fix.
		if (isServiceRejection(error, '-1149')) {
			error.message = `Symbol: ${write.symbol} has no LONG position to set a take profit or stop loss on`;
			error.description = `The service said: "${error.rejection.msg}" (code -1149). Nothing was set. Open the position first (Futures › Create Order, BUY), or give the TP/SL with the order itself.`;
		}
		throw withOutcome(
			unknownContractError(error, 'Symbol', () => write.symbol) as typeof error,
			'rejected',
		);
	}
	return [
		{
			outcome: 'placed',
			...tpSlQuery(write),
			...(settled.via === 'ledger' ? { replayed: true } : {}),
			// Found set by a run cut short before it (or by that run, replayed from the ledger).
			...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
			...(settled.via === 'lookup'
				? {
						confirmedByLookup: true,
						notConfirmed: 'the trigger sources: the position read back shows the prices only',
					}
				: {}),
		},
	];
}
