// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {BondingCurve} from "./BondingCurve.sol";

/// @title BundleBuyer
/// @notice Devnet-only: buys on a curve and hands the tokens to several wallets in the same
/// transaction, the bundle that the curve's Trade log alone shows as one buyer (this contract).
/// The simulator and the label tests use it so that trader labels are checked by what a
/// transaction did with the tokens, not by who called the curve.
contract BundleBuyer {
    error NoRecipients();

    /// @notice Buys with all of msg.value and sends the tokens out in equal parts (the last
    /// recipient also gets the remainder); a refund from the curve goes back to the caller.
    function buyFor(BondingCurve curve, address[] calldata recipients) external payable returns (uint256 bought) {
        if (recipients.length == 0) revert NoRecipients();
        bought = curve.buy{value: msg.value}(0, type(uint40).max);
        uint256 each = bought / recipients.length;
        for (uint256 i = 0; i < recipients.length; i++) {
            curve.token().transfer(recipients[i], i + 1 == recipients.length ? bought - each * i : each);
        }
        if (address(this).balance > 0) {
            (bool ok,) = msg.sender.call{value: address(this).balance}("");
            require(ok, "refund");
        }
    }

    receive() external payable {}
}
