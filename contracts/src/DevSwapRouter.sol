// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IUniswapV3Factory} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Factory.sol";
import {IUniswapV3Pool} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Pool.sol";
import {IUniswapV3SwapCallback} from "@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3SwapCallback.sol";

/// @title DevSwapRouter
/// @notice The smallest router that trades on graduated pools for the devnet and tests: exact
/// input, one hop. Callbacks are accepted only from the pool the v3 factory reports for the pair.
contract DevSwapRouter is IUniswapV3SwapCallback {
    using SafeERC20 for IERC20;

    uint24 public constant POOL_FEE = 3000;
    uint160 private constant MIN_SQRT_RATIO = 4295128739;
    uint160 private constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    IUniswapV3Factory public immutable v3Factory;

    error Expired();
    error NoPool();
    error Slippage(uint256 amountOut, uint256 minimum);
    error UnauthorizedCallback();
    error AmountTooLarge();

    constructor(IUniswapV3Factory v3Factory_) {
        v3Factory = v3Factory_;
    }

    /// @notice Swaps exactly `amountIn` of `tokenIn` (pulled from the caller, who must have
    /// approved this router) for at least `amountOutMinimum` of `tokenOut`, sent to `recipient`.
    function exactInputSingle(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 amountOutMinimum,
        address recipient,
        uint256 deadline
    ) external returns (uint256 amountOut) {
        if (block.timestamp > deadline) revert Expired();
        if (amountIn > uint256(type(int256).max)) revert AmountTooLarge();
        address pool = v3Factory.getPool(tokenIn, tokenOut, POOL_FEE);
        if (pool == address(0)) revert NoPool();
        bool zeroForOne = tokenIn < tokenOut;
        (int256 amount0, int256 amount1) = IUniswapV3Pool(pool).swap(
            recipient,
            zeroForOne,
            int256(amountIn),
            zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1,
            abi.encode(msg.sender, tokenIn, tokenOut)
        );
        amountOut = uint256(-(zeroForOne ? amount1 : amount0));
        if (amountOut < amountOutMinimum) revert Slippage(amountOut, amountOutMinimum);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        (address payer, address tokenIn, address tokenOut) = abi.decode(data, (address, address, address));
        address pool = v3Factory.getPool(tokenIn, tokenOut, POOL_FEE);
        if (pool == address(0) || msg.sender != pool) revert UnauthorizedCallback();
        uint256 owed = uint256(amount0Delta > 0 ? amount0Delta : amount1Delta);
        IERC20(tokenIn).safeTransferFrom(payer, msg.sender, owed);
    }
}
