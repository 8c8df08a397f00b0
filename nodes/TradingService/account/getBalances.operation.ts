import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { optionsCollection, parallelRequestsOption } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import type { RunContext } from '../run/runContext';
import { ACCOUNT_ENDPOINTS } from './endpoints';

const properties = (version: NodeVersion): INodeProperties[] => [
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		{
			displayName: 'Hide Zero Balances',
			name: 'hideZeroBalances',
			type: 'boolean',
			default: false,
			description: 'Whether to leave out coins whose total balance is zero',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['account'], operation: ['getBalances'] } },
		properties(version),
	);

/** Compared as text, never as a JS number. */
function isZero(value: unknown): boolean {
	return !/[1-9]/.test(String(value ?? '0'));
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const { hideZeroBalances = false } = run.options(
		itemIndex,
		(options) => options as { hideZeroBalances?: boolean },
	);
	// It takes nothing from the item: one read serves every item of the run.
	const answer = (await run.shared('balances', () =>
		run.client.request(ACCOUNT_ENDPOINTS.balances, { itemIndex }),
	)) as { balances: IDataObject[] };
	// Each item gets its own objects: a later node that changes one item changes no other.
	return answer.balances
		.filter((balance) => !hideZeroBalances || !isZero(balance.total))
		.map((balance) => ({ ...balance }));
}
