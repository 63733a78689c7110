// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title WrappedStable
/// @notice The 6-decimal ERC-20 face of the chain's 18-decimal native stablecoin, like Arc's
/// USDC interface: one ERC-20 unit is exactly 10^12 native base units.
contract WrappedStable is ERC20 {
    uint256 public constant NATIVE_PER_UNIT = 1e12;

    error NotWholeUnits();
    error NativeTransferFailed();

    constructor() ERC20("USD Coin (devnet)", "USDC") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Wraps native value into 6-decimal units; the value must be whole units.
    function deposit() external payable returns (uint256 units) {
        units = msg.value / NATIVE_PER_UNIT;
        if (units * NATIVE_PER_UNIT != msg.value) revert NotWholeUnits();
        _mint(msg.sender, units);
    }

    /// @notice Unwraps `units` back into native value.
    function withdraw(uint256 units) external {
        _burn(msg.sender, units);
        (bool ok,) = msg.sender.call{value: units * NATIVE_PER_UNIT}("");
        if (!ok) revert NativeTransferFailed();
    }
}
