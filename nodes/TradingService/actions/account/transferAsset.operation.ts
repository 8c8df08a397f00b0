import {
	NodeApiError,
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { accountId, coin, inputError, positiveDecimal } from '../../helpers/validation';
import { ENDPOINTS, outcomeOf, outcomeUnknownError, serviceRequest, toNodeError, withOutcome } from '../../transport';
import { fingerprint, WriteLedger } from '../../transport/ledger';

const properties: INodeProperties[] = [
	{
		displayName: 'From Account ID',
		name: 'fromAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000001',
		description: 'Numeric ID of the account to take the coin from (main trading, custody or sub trading account)',
	},
	{
		displayName: 'To Account ID',
		name: 'toAccountId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1470000000000000002',
		description: 'Numeric ID of the account to credit; must differ from From Account ID',
	},
	{
		displayName: 'Coin',
		name: 'coin',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. USDT',
	},
	{
		displayName: 'Quantity',
		name: 'quantity',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 100.5',
		description: 'Amount of the coin to move, as a decimal string; sent exactly as entered',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['account'], operation: ['transferAsset'] } }, properties);

/** What the ledger keeps of a transfer: the small scalar fields of the answer (ID and time). */
function storedTransfer(answer: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const [field, value] of Object.entries(answer)) {
		if ((typeof value === 'string' && value.length <= 64) || typeof value === 'number' || typeof value === 'boolean') stored[field] = value;
	}
	return stored;
}

/**
 * Transfers have nothing to look them up by, so one whose outcome is unknown is never sent again by
 * this node: when n8n re-runs the node (Retry On Fail, a retried execution), the write ledger
 * answers for it. A placed transfer comes back as it was answered; an unknown one is refused with
 * the unknown-outcome message; a refused one (it moved nothing) is sent again.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const from = accountId(node, 'From Account ID', this.getNodeParameter('fromAccountId', itemIndex), itemIndex);
	const to = accountId(node, 'To Account ID', this.getNodeParameter('toAccountId', itemIndex), itemIndex);
	if (from === to) {
		throw inputError(node, 'To Account ID', 'is the same as From Account ID', 'Pick two different accounts.', itemIndex);
	}
	const transferCoin = coin(node, 'Coin', this.getNodeParameter('coin', itemIndex), itemIndex);
	const quantity = positiveDecimal(node, 'Quantity', this.getNodeParameter('quantity', itemIndex), itemIndex);

	// The spec sends transfer parameters in the query string.
	const qs: IDataObject = { fromAccountId: from, toAccountId: to, coin: transferCoin, quantity };
	const slot = new WriteLedger(this).slot(String(itemIndex), fingerprint('assetTransfer', qs));
	const { what, howToCheck } = ENDPOINTS.assetTransfer.write.describe({ qs });
	if (slot.entry?.o === 'placed') return [{ outcome: 'placed', replayed: true, ...(slot.entry.r ?? {}) }];
	if (slot.entry?.o === 'unknown') {
		throw outcomeUnknownError(
			node,
			what,
			'an earlier try of this node run sent it and got no answer',
			'n8n ran the node again (Retry On Fail, or a retried execution)',
			howToCheck,
			itemIndex,
		);
	}

	// In flight: unknown until answered (a transfer is never looked up, so no timing is kept).
	slot.record({ o: 'unknown' });
	let answer: IDataObject;
	try {
		answer = (await serviceRequest.call(this, ENDPOINTS.assetTransfer, { qs, itemIndex })) as IDataObject;
	} catch (error) {
		// A rejection moved nothing: forget it, so that a re-run may send it again.
		if (outcomeOf(error) === 'rejected') slot.forget();
		throw toNodeError(node, error);
	}
	if (answer.success !== true) {
		slot.forget();
		throw withOutcome(
			new NodeApiError(node, answer as JsonObject, {
				message: `The service refused the ${what}`,
				description: `It answered success: false, so nothing was moved. Check the accounts, the coin and the balance, then run again.`,
				itemIndex,
			}),
			'rejected',
		);
	}
	slot.record({ o: 'placed', r: storedTransfer(answer) });
	return [{ outcome: 'placed', ...answer }];
}
