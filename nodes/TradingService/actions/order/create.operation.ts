import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { ERROR_CODES } from '../../constants';
import { orderFields, orderOptions, readOrderParameters } from '../../descriptions/order';
import { deriveClientOrderId } from '../../helpers/clientOrderIds';
import { parameterLabel, validateOrder } from '../../helpers/orderRules';
import { ENDPOINTS, isServiceRejection, serviceRequest, toNodeError } from '../../transport';
import { generatedIdPrefix, readOrderOptions } from './context';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['order'], operation: ['create'] } },
	[...orderFields, orderOptions],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const options = readOrderOptions.call(this, itemIndex);
	const raw = readOrderParameters((name, fallback) => this.getNodeParameter(name, itemIndex, fallback));
	const order = validateOrder(this.getNode(), raw, parameterLabel, itemIndex);
	if (order.newClientOrderId === undefined && options.generateClientOrderId !== false) {
		order.newClientOrderId = deriveClientOrderId(generatedIdPrefix.call(this), itemIndex, 0);
	}

	const qs: IDataObject = { ...order };
	if (options.recvWindow !== undefined) qs.recvWindow = options.recvWindow;
	try {
		return [(await serviceRequest.call(this, ENDPOINTS.newOrder, { qs, itemIndex })) as IDataObject];
	} catch (error) {
		// The ID was used before: this order (or one with the same business key) is already placed.
		if (isServiceRejection(error, ERROR_CODES.duplicateClientOrderId)) {
			return [
				{
					alreadyPlaced: true,
					clientOrderId: order.newClientOrderId,
					symbol: order.symbol,
					code: error.rejection.code,
					msg: error.rejection.msg,
				},
			];
		}
		throw toNodeError(this.getNode(), error);
	}
}
