# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the 32-bit run (make qemu-kunit-i386): the
# kernel's own i386 parameters (tools/testing/kunit/qemu_configs/i386.py)
# plus two vCPUs and TCG, as qemu/x86_64.py.  scripts/qemu-kunit.sh runs
# QEMU itself with the same parameters: change both together.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='i386',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='i386',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-accel', 'tcg', '-smp', '2'])
