/** Shared by the transport's tests against the sandbox. */
import type { IDataObject } from 'n8n-workflow';

/** The query of a valid limit order with this client order ID; `overrides` change or add fields. */
export const limitOrderQuery =
	(newClientOrderId: string) =>
	(overrides: IDataObject = {}) => ({
		symbol: 'BTCUSDT',
		side: 'BUY',
		type: 'LIMIT',
		timeInForce: 'GTC',
		stpMode: 'EXPIRE_TAKER',
		quantity: '0.001',
		price: '100',
		newClientOrderId,
		...overrides,
	});
