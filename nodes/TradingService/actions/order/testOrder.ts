import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { OrderParams } from '../../helpers/orderRules';
import { ENDPOINTS, serviceRequest } from '../../transport';

/**
 * Create with Test Only: the exchange checks the order (fields, symbol, balance, client order ID)
 * through POST /api/v1/spot/orderTest and places nothing. Not a write: nothing can be executed, so
 * the item carries no outcome, and a refusal is the exchange's error as for a real order.
 */
export async function testOrder(this: IExecuteFunctions, order: OrderParams, qs: IDataObject, itemIndex: number): Promise<IDataObject> {
	const answer = (await serviceRequest.call(this, ENDPOINTS.orderTest, { qs, itemIndex })) as IDataObject;
	const { newClientOrderId, ...sent } = order;
	return {
		testOnly: true,
		valid: true,
		placed: false,
		message: 'The exchange accepted this order as valid. Nothing was placed: turn off Test Only to place it.',
		...sent,
		...(newClientOrderId === undefined ? {} : { clientOrderId: newClientOrderId }),
		...(Object.keys(answer).length > 0 ? { response: answer } : {}),
	};
}
