/** The issued-certificates metric of a PKI mount, counted where a certificate is signed (leaves and CAs). */
import { metrics, mountOf } from '../metrics/catalog';
import type { Partition } from '../store/store';

/** Counts a certificate issued by `issuerId` on the partition's mount, under a role (empty: none, as for CA certificates). */
export function countIssued(part: Partition, issuerId: string, roleName = ''): void {
  metrics.pki.issued.inc({ mount: mountOf(part.name), issuer: issuerId, role: roleName });
}
