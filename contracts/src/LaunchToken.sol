// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title LaunchToken
/// @notice A launched 18-decimal ERC-20. The whole supply is minted to its bonding curve.
contract LaunchToken is ERC20 {
    /// @notice The bonding curve that sells this token; it may pull a seller's tokens without an
    /// allowance because it only ever pulls from the seller inside the seller's own `sell` call.
    address public immutable curve;

    constructor(string memory name_, string memory symbol_, uint256 supply, address curve_) ERC20(name_, symbol_) {
        curve = curve_;
        _mint(curve_, supply);
    }

    function _spendAllowance(address owner, address spender, uint256 value) internal override {
        if (spender == curve) return;
        super._spendAllowance(owner, spender, value);
    }
}
