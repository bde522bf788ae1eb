// The addresses no sender may take as its own processing address: the shared processing
// addresses (INBOUND_ADDRESSES) and the self-test address (SELFTEST_ADDRESS), each process's
// directory refusing them alike.
import type { Config } from '../config.js';
import type { AddressesInUse } from './tenant-settings.js';

export function addressesInUse(config: Pick<Config, 'inboundAddresses' | 'selfTestAddress'>): AddressesInUse {
  return {
    sharedAddresses: config.inboundAddresses,
    reservedAddresses: config.selfTestAddress === undefined ? [] : [config.selfTestAddress],
  };
}
