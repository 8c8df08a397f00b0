import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { accountId, coin, inputError, positiveDecimal } from '../helpers/validation';
import { settleWrites } from '../writes/engine';
import { withOutcome } from '../writes/outcomes';
import { pendingTransfer, transferKind } from './transferWrites';
import { clientTransferIdOf, rememberClientTransfer } from './transferKeys';
import type { RunContext } from '../run/runContext';
import { optionsCollection, waitAfterRateLimitOption } from '../descriptions/common';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { writeSessionOf } from '../writes/writeSession';

/** What each node version calls the two account fields: errors name what the user sees. */
const ACCOUNT_LABELS: Record<NodeVersion, { from: string; to: string }> = {
	1: { from: 'From Account ID', to: 'To Account ID' },
	2: { from: 'From Account', to: 'To Account' },
};

const properties = (version: NodeVersion): INodeProperties[] => [
	pickerField(
		version,
		'accounts',
		{
			displayName: ACCOUNT_LABELS[1].from,
			name: 'fromAccountId',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 1470000000000000001',
			description:
				'Numeric ID of the account to take the coin from (main trading, custody or sub trading account)',
		},
		{
			displayName: ACCOUNT_LABELS[2].from,
			description:
				'The account to take the coin from: the main trading, custody or a sub trading account',
		},
	),
	pickerField(
		version,
		'accounts',
		{
			displayName: ACCOUNT_LABELS[1].to,
			name: 'toAccountId',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 1470000000000000002',
			description: 'Numeric ID of the account to credit; must differ from From Account ID',
		},
		{
			displayName: ACCOUNT_LABELS[2].to,
			description: 'The account to credit; must differ from From Account',
		},
	),
	pickerField(
		version,
		'coins',
		{
			displayName: 'Coin',
			name: 'coin',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. USDT',
		},
		{ description: 'The coin to move, e.g. USDT' },
	),
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 100.5',
		description:
			'How much to move, in the coin picked above (e.g. 100.5 for 100.5 USDT), as a decimal; sent exactly as entered',
	},
];

const clientTransferIdOption: INodeProperties = {
	displayName: 'Client Transfer ID',
	name: 'clientTransferId',
	type: 'string',
	default: '',
	placeholder: 'e.g. deposit-D578755281141776384',
	description:
		'Your own ID naming this transfer for good (1 to 64 characters), e.g. built from the deposit or invoice it moves on. Before sending, the node looks it up in the transfer history of the last 29 days: a transfer found under it is reported as already placed and never made again, so a workflow run twice moves the money once. Empty: the node generates an ID per run.',
};

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['account'], operation: ['transferAsset'] } }, [
		...properties(version),
		...(version < 2
			? []
			: [optionsCollection([clientTransferIdOption, ...waitAfterRateLimitOption(version)])]),
	]);

/**
 * Moves a coin between two accounts of the user (POST /api/v1/account/assetTransfer), settled by the
 * write engine (transferWrites.ts). After a lost run, the transfer that run made is `alreadyPlaced`,
 * with `confirmedByLookup` or `foundBy` saying how it was found.
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const parameter = (name: string) => run.parameter(name, itemIndex);
	const { from: fromLabel, to: toLabel } = ACCOUNT_LABELS[run.version];
	const from = accountId(node, fromLabel, parameter('fromAccountId'), itemIndex);
	const to = accountId(node, toLabel, parameter('toAccountId'), itemIndex);
	if (from === to) {
		const why = `is the same as ${fromLabel}`;
		throw inputError(node, toLabel, why, 'Pick two different accounts.', itemIndex);
	}
	const transferCoin = coin(node, 'Coin', parameter('coin'), itemIndex);
	const quantity = positiveDecimal(node, 'Quantity', parameter('quantity'), itemIndex);
	const clientTransferId =
		run.version < 2
			? undefined
			: clientTransferIdOf(
					node,
					run.parameter('options.clientTransferId', itemIndex, ''),
					itemIndex,
				);
	const session = writeSessionOf(run);
	const pending = pendingTransfer(
		session.ledger,
		String(itemIndex),
		{ fromAccountId: from, toAccountId: to, coin: transferCoin, quantity },
		itemIndex,
		session.idPrefix,
		clientTransferId,
	);
	await settleWrites(session, transferKind(session), [pending]);
	const settled = pending.settled!;
	if (clientTransferId !== undefined && settled.outcome !== 'rejected')
		rememberClientTransfer(await session.client.keyIdentity(), clientTransferId, {
			transfer: { fromAccountId: from, toAccountId: to, coin: transferCoin, quantity },
			outcome: settled.outcome,
			result: settled.outcome === 'placed' ? settled.result : {},
		});
	if (settled.outcome === 'placed') {
		const { alreadyPlaced, via } = settled;
		return [
			{
				outcome: 'placed',
				...(via === 'ledger' ? { replayed: true } : {}),
				...(alreadyPlaced ? { alreadyPlaced: true } : {}),
				...settled.result,
			},
		];
	}
	if (settled.outcome === 'unknown') throw settled.error;
	throw withOutcome(settled.refusal.error!, 'rejected');
}
