import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { inputError } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { pendingWrite, settleWrites } from '../writes/engine';
import { fingerprint } from '../writes/ledger';
import { withOutcome } from '../writes/outcomes';
import { writeSessionOf } from '../writes/writeSession';
import { contractField, requiredContract, unknownContractError } from './contracts';
import { readFuturesGuardrails } from './futuresGuardrails';
import { leverageKind, contractGuardrails, type LeverageWrite } from './positionWrites';

const properties = (version: NodeVersion): INodeProperties[] => [
	contractField(version, 'whose leverage to set'),
	{
		displayName: 'Leverage',
		name: 'leverage',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1,
		description:
			'The leverage of the contract, a whole number from 1 (the exchange refuses more than the contract allows): orders without their own leverage use it',
	},
	contractGuardrails(true),
	...parallelRequestsOnly(version),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['futures'], operation: ['setLeverage'] } },
		properties(version),
	);

function readLeverage(run: RunContext, itemIndex: number): number {
	const raw = run.parameter('leverage', itemIndex, '');
	const value = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : raw;
	if (
		typeof value === 'number' &&
		Number.isInteger(value) &&
		value >= 1 &&
		Number.isSafeInteger(value)
	)
		return value;
	throw inputError(
		run.node,
		'Leverage',
		`${raw === '' || raw === undefined || raw === null ? 'an empty value' : JSON.stringify(raw)} is not a leverage`,
		'Give a whole number from 1, e.g. 5.',
		itemIndex,
	);
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const symbol = requiredContract(run, itemIndex);
	const leverage = readLeverage(run, itemIndex);
	const { allowedContracts, maxLeverage } = readFuturesGuardrails(run, itemIndex);
	const fix =
		'Nothing was sent. Change the value, or the limit in the node’s Guardrails if it is intended.';
	if (allowedContracts !== undefined && !allowedContracts.includes(symbol))
		throw inputError(
			node,
			'Symbol',
			`${symbol} is not in Allowed Contracts (${allowedContracts.join(', ')})`,
			fix,
			itemIndex,
		);
	if (maxLeverage !== undefined && leverage > maxLeverage)
		throw inputError(
			node,
			'Leverage',
			`${leverage} is above Max Leverage (${maxLeverage})`,
			fix,
			itemIndex,
		);
	const writes = writeSessionOf(run);
	const write: LeverageWrite = { symbol, leverage };
	const slot = writes.ledger.slot(
		String(itemIndex),
		fingerprint('futuresLeverage', { ...write }),
		itemIndex,
	);
	const pending = pendingWrite(slot, write, itemIndex);
	await settleWrites(writes, leverageKind(writes), [pending]);
	const settled = pending.settled!;
	if (settled.outcome === 'unknown') throw settled.error;
	if (settled.outcome === 'rejected') {
		const error = unknownContractError(settled.refusal.error, 'Symbol', () => symbol);
		throw withOutcome(error as NonNullable<typeof settled.refusal.error>, 'rejected');
	}
	return [
		{
			outcome: 'placed',
			symbol,
			leverage: String(settled.result.leverage ?? leverage),
			...(settled.via === 'ledger' ? { replayed: true } : {}),
			...(settled.via === 'lookup' ? { confirmedByLookup: true } : {}),
			// Found set by a run cut short before it (or by that run, replayed from the ledger).
			...(settled.alreadyPlaced ? { alreadyPlaced: true } : {}),
		},
	];
}
