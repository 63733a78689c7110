// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IUniswapV3Factory} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Factory.sol";
import {IUniswapV3Pool} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Pool.sol";
import {IUniswapV3MintCallback} from "@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3MintCallback.sol";
import {ILaunchFactory} from "./ILaunchFactory.sol";
import {WrappedStable} from "./WrappedStable.sol";

/// @title Graduator
/// @notice Turns a filled curve into a Uniswap V3 market: wraps the native reserve into the
/// 6-decimal stablecoin, creates (or reuses) the token/stable pool, initializes it at the
/// curve's final price, adds full-range liquidity and keeps the position forever. This contract
/// has no function that burns or collects a position, so the liquidity is locked.
contract Graduator is IUniswapV3MintCallback {
    using SafeERC20 for IERC20;

    uint24 public constant POOL_FEE = 3000;
    /// @dev Full range for tick spacing 60: the outermost ticks divisible by 60.
    int24 public constant MIN_TICK = -887220;
    int24 public constant MAX_TICK = 887220;
    address public constant BURN_ADDRESS = 0x000000000000000000000000000000000000dEaD;

    ILaunchFactory public immutable factory;
    IUniswapV3Factory public immutable v3Factory;
    WrappedStable public immutable stable;

    /// @dev The pool allowed to call back during the current graduation (zero otherwise).
    address private expectedPool;

    error OnlyCurve();
    error UnauthorizedCallback();

    constructor(ILaunchFactory factory_, IUniswapV3Factory v3Factory_, WrappedStable stable_) {
        factory = factory_;
        v3Factory = v3Factory_;
        stable = stable_;
    }

    /// @notice Called by a curve with its whole native reserve, after sending its remaining tokens.
    function graduate(address token, uint256 virtualTokenReserve, uint256 virtualReserve)
        external
        payable
        returns (ILaunchFactory.GraduationRecord memory record)
    {
        if (!factory.isCurve(msg.sender)) revert OnlyCurve();
        uint256 unit = stable.NATIVE_PER_UNIT();
        uint256 stableUnits = msg.value / unit;
        uint256 dust = msg.value - stableUnits * unit;
        stable.deposit{value: stableUnits * unit}();

        address pool = v3Factory.getPool(token, address(stable), POOL_FEE);
        if (pool == address(0)) pool = v3Factory.createPool(token, address(stable), POOL_FEE);
        (uint160 sqrtPriceX96,,,,,,) = IUniswapV3Pool(pool).slot0();
        if (sqrtPriceX96 == 0) {
            sqrtPriceX96 = curveSqrtPriceX96(token, virtualTokenReserve, virtualReserve);
            IUniswapV3Pool(pool).initialize(sqrtPriceX96);
        }
        // Someone may have created and priced the pool before graduation; liquidity then goes
        // in at the pool's price, with whatever does not fit returned below.

        uint256 tokenBalance = IERC20(token).balanceOf(address(this));
        bool tokenIsZero = token < address(stable);
        uint128 liquidity = fullRangeLiquidity(
            sqrtPriceX96, tokenIsZero ? tokenBalance : stableUnits, tokenIsZero ? stableUnits : tokenBalance
        );
        expectedPool = pool;
        (uint256 amount0, uint256 amount1) =
            IUniswapV3Pool(pool).mint(address(this), MIN_TICK, MAX_TICK, liquidity, abi.encode(token));
        expectedPool = address(0);

        (uint256 tokenUsed, uint256 stableUsed) = tokenIsZero ? (amount0, amount1) : (amount1, amount0);
        uint256 tokensLeft = tokenBalance - tokenUsed;
        if (tokensLeft > 0) IERC20(token).safeTransfer(BURN_ADDRESS, tokensLeft);
        address feeRecipient = factory.protocolFeeRecipient();
        if (stableUnits > stableUsed) IERC20(address(stable)).safeTransfer(feeRecipient, stableUnits - stableUsed);
        if (dust > 0) {
            (bool ok,) = feeRecipient.call{value: dust}("");
            ok; // dust below one stable unit; a refusing recipient must not block graduation
        }

        record = ILaunchFactory.GraduationRecord({
            token: token,
            pool: pool,
            tokenAmount: tokenUsed,
            reserveAmount: stableUsed * unit,
            stableAmount: stableUsed,
            burnedTokenAmount: tokensLeft,
            liquidity: liquidity,
            sqrtPriceX96: sqrtPriceX96
        });
    }

    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata data) external {
        if (msg.sender != expectedPool || expectedPool == address(0)) revert UnauthorizedCallback();
        address token = abi.decode(data, (address));
        (address token0, address token1) = token < address(stable) ? (token, address(stable)) : (address(stable), token);
        if (amount0Owed > 0) IERC20(token0).safeTransfer(msg.sender, amount0Owed);
        if (amount1Owed > 0) IERC20(token1).safeTransfer(msg.sender, amount1Owed);
    }

    /// @notice The curve's last price (virtualReserve / virtualTokenReserve native per token)
    /// expressed as a V3 sqrt price of raw token1 per raw token0, stable counted in 6 decimals.
    /// @dev sqrt(p * 2^128) * 2^32 == sqrt(p) * 2^96 without overflowing for either orientation.
    function curveSqrtPriceX96(address token, uint256 virtualTokenReserve, uint256 virtualReserve)
        public
        view
        returns (uint160)
    {
        uint256 unit = stable.NATIVE_PER_UNIT();
        uint256 ratioX128 = token < address(stable)
            ? Math.mulDiv(virtualReserve, 1 << 128, virtualTokenReserve * unit)
            : Math.mulDiv(virtualTokenReserve * unit, 1 << 128, virtualReserve);
        return uint160(Math.sqrt(ratioX128) << 32);
    }

    /// @notice Liquidity that full-range amounts support at a price, rounded so both fit.
    /// @dev Over the full range, amount0 ~= L * 2^96 / sqrtP and amount1 ~= L * sqrtP / 2^96, and
    /// the exact amounts are slightly smaller, so the minimum of the two estimates always fits.
    function fullRangeLiquidity(uint160 sqrtPriceX96, uint256 amount0, uint256 amount1)
        public
        pure
        returns (uint128)
    {
        uint256 fromAmount0 = Math.mulDiv(amount0, sqrtPriceX96, 1 << 96);
        uint256 fromAmount1 = Math.mulDiv(amount1, 1 << 96, sqrtPriceX96);
        uint256 liquidity = Math.min(fromAmount0, fromAmount1);
        // Leave a hair of room for the pool's round-up of owed amounts.
        liquidity = liquidity - liquidity / 1e6 - 1;
        return uint128(Math.min(liquidity, type(uint128).max / 2 ** 20));
    }

    receive() external payable {}
}
