import type { IDataObject } from 'n8n-workflow';

import type { RunContext } from '../run/runContext';
import { WALLET_ENDPOINTS } from './endpoints';
import { WITHDRAWAL_RANGE_MS, executeList, listDescription, type WalletList } from './walletList';
import { WITHDRAWAL_STATUSES } from './walletPages';

/**
 * Get Withdrawals: the withdrawal records (GET /api/v1/account/withdrawOrders), master key only;
 * a range longer than 7 days is read 7 days a request (the family's limit).
 */
export const WITHDRAWALS: WalletList = {
	operation: 'getWithdrawals',
	noun: 'withdrawal',
	endpoint: WALLET_ENDPOINTS.withdrawals,
	idField: 'id',
	statuses: WITHDRAWAL_STATUSES,
	maxRangeMs: WITHDRAWAL_RANGE_MS,
};

export const description = () => listDescription(WITHDRAWALS);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	return await executeList(run, WITHDRAWALS, itemIndex);
}
