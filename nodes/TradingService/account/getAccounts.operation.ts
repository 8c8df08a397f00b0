import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { accountItem } from '../helpers/accountScope';
import type { RunContext } from '../run/runContext';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['account'], operation: ['getAccounts'] } }, [
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return (await run.keyAccounts(itemIndex)).map(accountItem);
}
