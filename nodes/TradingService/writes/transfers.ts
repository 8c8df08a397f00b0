import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { ENDPOINTS } from '../transport';
import type { EngineRun, WriteKind } from './engine';
import { pendingWrite, type PendingWrite } from './pendingWrite';
import { fingerprint, type WriteLedger } from './ledger';

/**
 * Transfers as the engine settles them. A transfer has nothing to look it up by, so one whose
 * outcome is unknown is never sent again by this node: when n8n re-runs the node (Retry On Fail, a
 * retried execution), the ledger answers for it. A placed transfer comes back as it was answered;
 * an unknown one is reported unknown again; a refused one (it moved nothing) is sent again.
 */

/** The transfer as sent: the spec sends its parameters in the query string. */
export interface TransferWrite {
	qs: { fromAccountId: string; toAccountId: string; coin: string; quantity: string };
}

export type PendingTransfer = PendingWrite<TransferWrite>;

export function pendingTransfer(
	ledger: WriteLedger,
	slotName: string,
	write: TransferWrite,
	itemIndex: number,
): PendingTransfer {
	return pendingWrite(
		ledger.slot(slotName, fingerprint('assetTransfer', write.qs)),
		write,
		itemIndex,
	);
}

/** What the ledger keeps of a transfer: the small scalar fields of the answer (ID and time). */
function storedTransfer(answer: IDataObject): IDataObject {
	const stored: IDataObject = {};
	for (const [field, value] of Object.entries(answer)) {
		if (
			(typeof value === 'string' && value.length <= 64) ||
			typeof value === 'number' ||
			typeof value === 'boolean'
		)
			stored[field] = value;
	}
	return stored;
}

export function transferKind(run: EngineRun): WriteKind<TransferWrite> {
	const wording = ({ qs }: TransferWrite) => ({
		what: `transfer of ${qs.quantity} ${qs.coin} from ${qs.fromAccountId} to ${qs.toAccountId}`,
		howToCheck:
			'Check the transfer history (Trading Service > Get Transaction History, Flow Type: Transfer Between Accounts) or the account balances',
	});
	return {
		wording,
		whyNoLookup: () => 'a transfer has nothing to look it up by',
		unknownDetail: () => 'n8n ran the node again (Retry On Fail, or a retried execution)',
		stored: storedTransfer,
		groups: (pending) => pending.map((one) => [one]),
		request: ([pending]) => ({
			endpoint: ENDPOINTS.assetTransfer,
			request: { qs: { ...pending.write.qs }, itemIndex: pending.itemIndex },
		}),
		read: (body, [pending]) => {
			const answer = body as IDataObject;
			if (answer.success === true) return [{ kind: 'placed', result: answer }];
			const error = new NodeApiError(run.node, answer as JsonObject, {
				message: `The service refused the ${wording(pending.write).what}`,
				description:
					'It answered success: false, so nothing was moved. Check the accounts, the coin and the balance, then run again.',
				itemIndex: pending.itemIndex,
			});
			return [{ kind: 'rejected', refusal: { error } }];
		},
		lookup: async () => ({ kind: 'unknown', reason: 'a transfer has nothing to look it up by' }),
	};
}
