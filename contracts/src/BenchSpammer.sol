// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {BondingCurve} from "./BondingCurve.sol";

/// @title BenchSpammer
/// @notice Benchmark-only load generator: many curve buys or token transfers in one transaction,
/// so a chain with 100k+ launchpad events can be built in seconds. Never deployed outside the
/// indexer benchmark.
contract BenchSpammer {
    /// @notice `count` curve buys of `valueEach`, all paid from msg.value.
    function buys(BondingCurve curve, uint256 count, uint256 valueEach) external payable {
        for (uint256 i = 0; i < count; i++) {
            curve.buy{value: valueEach}(0, type(uint40).max);
        }
    }

    /// @notice `count` transfers of `amountEach` to pseudo-random wallets derived from `salt`.
    function scatter(IERC20 token, uint256 count, uint256 amountEach, uint256 salt) external {
        for (uint256 i = 0; i < count; i++) {
            address to = address(uint160(uint256(keccak256(abi.encode(salt, i)))));
            token.transfer(to, amountEach);
        }
    }

    receive() external payable {}
}
