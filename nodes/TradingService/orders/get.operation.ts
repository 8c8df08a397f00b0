import {
	NodeApiError,
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { ERROR_CODES } from '../constants';
import { accountOption, optionsCollection, parallelRequestsOption } from '../descriptions/common';
import { inScope } from '../helpers/accountScope';
import {
	describeReference,
	lookupQuery,
	orderReferenceFields,
	readOrderReference,
} from './orderIds';
import { isServiceRejection, toNodeError } from '../transport';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { ORDER_ENDPOINTS } from './endpoints';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['order'], operation: ['get'] } }, [
		...orderReferenceFields(version),
		...(version < 2
			? []
			: [
					optionsCollection([
						...parallelRequestsOption(version, 'item'),
						...accountOption(version, 'a client order ID is looked up in'),
					]),
				]),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const reference = readOrderReference(run, itemIndex);
	// A client order ID is unique per account only: it is looked up in one (helpers/accountScope.ts).
	const scope = 'orderId' in reference ? undefined : await run.account(itemIndex);
	let order: IDataObject;
	try {
		order = (await run.client.request(ORDER_ENDPOINTS.queryOrder, {
			qs: { ...lookupQuery(reference), ...(scope ? { accountId: scope.accountId } : {}) },
			itemIndex,
		})) as IDataObject;
	} catch (error) {
		if (!isServiceRejection(error, ERROR_CODES.orderNotFound)) throw toNodeError(node, error);
		const field = 'orderId' in reference ? 'Order ID' : 'Client Order ID';
		throw new NodeApiError(node, error.rejection as unknown as JsonObject, {
			message: `${field}: the service has no ${describeReference(reference).replace(/^the /, '')}`,
			description: `The service said: "${error.rejection.msg}" (code ${error.rejection.code}). Check the ${field}: it must be an order of this API key's account (orders of a sub account need its key or the master key).`,
			httpCode: String(error.rejection.httpStatus),
			itemIndex,
		});
	}
	if (scope !== undefined && !inScope(scope, order))
		throw new NodeOperationError(
			node,
			`Client Order ID: account ${scope.accountId} has no ${describeReference(reference).replace(/^the /, '')}`,
			{
				description: `The service answered with an order of account ${String(order.accountId)}, not of account ${scope.accountId}. Pick that account in the Account option to get it.`,
				itemIndex,
			},
		);
	return [order];
}
