import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { accountItem } from '../helpers/accountScope';
import type { RunContext } from '../run/runContext';
import { KEY_ACCOUNTS_ENDPOINT } from '../transport';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['account'], operation: ['getAccounts'] } }, [
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const accounts = (await run.client.request(KEY_ACCOUNTS_ENDPOINT, {
		itemIndex,
	})) as IDataObject[];
	return accounts.map(accountItem);
}
