import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { ERROR_CODES } from '../../constants';
import { parallelRequestsOnly } from '../../descriptions/common';
import { orderReferenceFields } from '../../descriptions/orderLookup';
import { describeReference, lookupQuery, orderReference } from '../../helpers/orderIds';
import { ENDPOINTS, isServiceRejection, toNodeError } from '../../transport';
import type { RunContext } from '../runContext';
import type { NodeVersion } from '../../descriptions/pickers';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['order'], operation: ['get'] } }, [
		...orderReferenceFields(version),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const reference = orderReference(
		node,
		run.parameter('orderId', itemIndex, ''),
		run.parameter('clientOrderId', itemIndex, ''),
		itemIndex,
	);
	try {
		return [
			(await run.client.request(ENDPOINTS.queryOrder, {
				qs: lookupQuery(reference),
				itemIndex,
			})) as IDataObject,
		];
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
}
