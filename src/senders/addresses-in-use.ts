// The addresses no sender may take as its own processing address: the shared processing
// addresses (INBOUND_ADDRESSES) and the self-test address (SELFTEST_ADDRESS), each process's
// directory refusing them alike.
import type { AddressesInUse } from './tenant-settings.js';

/** The configured addresses this reads (INBOUND_ADDRESSES, SELFTEST_ADDRESS). */
export interface ConfiguredAddresses {
  readonly inboundAddresses: readonly string[];
  readonly selfTestAddress: string | undefined;
}

export function addressesInUse(config: ConfiguredAddresses): AddressesInUse {
  return {
    sharedAddresses: config.inboundAddresses,
    reservedAddresses: config.selfTestAddress === undefined ? [] : [config.selfTestAddress],
  };
}
